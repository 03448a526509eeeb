/* suggest-1.0.js: player name suggestions while typing, one component for the header's
 * search box (every page) and the calculator's name fields. An enhancement: without it
 * both forms still work.
 *
 * An <input data-suggest="(the player search API)"> gets a listbox under it (an ARIA
 * combobox). Once typing rests, it shows the API's best hits: each name as the server
 * shows it (isolated in a <bdi>) over what tells players of one name apart
 * (summary_display: main character and rating, platform, last seen) and a past name that
 * matched. Up and Down move, Enter or a click picks, Escape closes. Picking goes to the
 * player's page, unless the page attached the input itself with its own onPick
 * (PlayerSuggest.attach(input, {onPick, onResults})), as the calculator does.
 */
(function () {
  "use strict";

  var LIMIT = 8;
  var REST_MS = 200; // typing paused this long before suggestions are asked for
  var MIN_LENGTH = 2;

  function element(tag, className, text) {
    var made = document.createElement(tag);
    if (className) made.className = className;
    if (text) made.textContent = text;
    return made;
  }

  function suggestion(hit, id) {
    var item = element("li", "suggestion");
    item.id = id;
    item.setAttribute("role", "option");
    item.setAttribute("aria-selected", "false");
    var name = element("bdi", "suggestion-name", hit.name);
    var detail = element("span", "suggestion-detail", hit.summary_display);
    item.appendChild(name);
    if (hit.matched_name !== hit.name) {
      var past = element("span", "suggestion-detail", "formerly ");
      past.appendChild(element("bdi", "", hit.matched_name));
      item.appendChild(past);
    }
    item.appendChild(detail);
    return item;
  }

  function attach(input, options) {
    if (input.dataset.suggesting) return;
    input.dataset.suggesting = "yes";
    var settings = options || {};
    var onPick = settings.onPick || function (hit) {
      window.location.href = "/player/" + encodeURIComponent(hit.id);
    };
    var list = element("ul", "suggestions");
    list.id = input.id + "-suggestions";
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", "Players");
    list.hidden = true;
    input.insertAdjacentElement("afterend", list);
    input.parentNode.classList.add("suggesting");
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-controls", list.id);
    input.setAttribute("aria-expanded", "false");
    var state = { hits: [], active: -1, timer: null, asked: 0 };

    function close() {
      list.hidden = true;
      state.active = -1;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
    }

    function activate(index) {
      var items = list.children;
      if (state.active >= 0 && items[state.active]) items[state.active].setAttribute("aria-selected", "false");
      state.active = index;
      if (index < 0) {
        input.removeAttribute("aria-activedescendant");
        return;
      }
      items[index].setAttribute("aria-selected", "true");
      input.setAttribute("aria-activedescendant", items[index].id);
      items[index].scrollIntoView({ block: "nearest" });
    }

    function pick(index) {
      var hit = state.hits[index];
      close();
      if (hit) onPick(hit);
    }

    function show(hits) {
      state.hits = hits;
      list.textContent = "";
      hits.forEach(function (hit, index) {
        list.appendChild(suggestion(hit, list.id + "-" + index));
      });
      state.active = -1;
      list.hidden = !hits.length;
      input.setAttribute("aria-expanded", hits.length ? "true" : "false");
    }

    function ask() {
      var query = input.value.trim();
      var asked = ++state.asked;
      if (query.length < MIN_LENGTH) {
        show([]);
        return;
      }
      var address = input.dataset.suggest + "?limit=" + LIMIT + "&name=" + encodeURIComponent(query);
      fetch(address, { headers: { Accept: "application/json" } })
        .then(function (response) { return response.ok ? response.json() : { results: [] }; })
        .then(function (body) {
          if (asked !== state.asked) return; // typed on meanwhile
          if (settings.onResults) settings.onResults(body.results);
          if (document.activeElement === input) show(body.results);
        })
        .catch(function () { /* no suggestions: the form still works */ });
    }

    input.addEventListener("input", function () {
      clearTimeout(state.timer);
      state.timer = setTimeout(ask, REST_MS);
    });
    input.addEventListener("keydown", function (event) {
      var count = list.hidden ? 0 : state.hits.length;
      if (event.key === "ArrowDown" && count) {
        event.preventDefault();
        activate((state.active + 1) % count);
      } else if (event.key === "ArrowUp" && count) {
        event.preventDefault();
        activate(state.active <= 0 ? count - 1 : state.active - 1);
      } else if (event.key === "Enter" && state.active >= 0) {
        event.preventDefault();
        pick(state.active);
      } else if (event.key === "Escape" && !list.hidden) {
        event.preventDefault();
        close();
      }
    });
    input.addEventListener("blur", close);
    // Pressing an option would blur the input (closing the list) before the click.
    list.addEventListener("mousedown", function (event) { event.preventDefault(); });
    list.addEventListener("click", function (event) {
      var item = event.target.closest("[role=option]");
      if (item) pick(Array.prototype.indexOf.call(list.children, item));
    });
  }

  window.PlayerSuggest = { attach: attach };

  document.addEventListener("DOMContentLoaded", function () {
    // The page's own scripts attach theirs first (deferred scripts run in order, each
    // listener after the one before); the rest go to the player's page when picked.
    setTimeout(function () {
      Array.prototype.forEach.call(document.querySelectorAll("input[data-suggest]"), function (input) {
        attach(input);
      });
    }, 0);
  });
})();
