/* calculator-1.4.js: the calculator's player picks and live result, as an enhancement
 * (the page works as a plain form without it).
 *
 * Each name field has the site's suggestions (suggest-1.0.js): picking one picks that
 * player and offers only the characters they have ratings for, save retired ones (the
 * form's data-retired codes) unless the player has no other; a typed name that is
 * exactly some players' name offers theirs, each told apart by their main character,
 * rating, platform and last seen. The result follows every change: the script asks /api/v1/probability/, which answers with
 * the server's own forecast and texts (matches.selectors.calculator), so no rating math
 * lives here. Requests wait until the inputs rest for a moment; a reply to older inputs
 * is dropped. The inputs are kept in the page's URL, so that a result can be shared.
 * tests/browser/test_calculator.py checks the result against the server's page.
 */
(function () {
  "use strict";

  var REST_MS = 200; // inputs unchanged this long before the result is asked for

  // --- The form ---------------------------------------------------------------------------

  function field(fieldset, name) {
    return fieldset.querySelector('[name="' + fieldset.dataset.side + "-" + name + '"]');
  }

  // A typed number the form would take (the input's own min and max, from the form field).
  function number(input) {
    return input.value !== "" && input.validity.valid ? parseFloat(input.value) : null;
  }

  // A side as the API takes it: `player_id:character` for a picked player's character, else
  // `value,deviation` from the typed rating and its ± (twice the deviation); null if neither.
  function sideQuery(fieldset) {
    var select = fieldset.querySelector("[data-character]");
    var option = select.options[select.selectedIndex];
    if (field(fieldset, "player").value && option && option.dataset.player) {
      return option.dataset.player + ":" + option.value;
    }
    var value = number(field(fieldset, "rating"));
    var plusMinus = number(field(fieldset, "uncertainty"));
    if (value === null || plusMinus === null) return null;
    return String(value) + "," + String(plusMinus / 2);
  }

  function sideLabel(cell, letter, side) {
    cell.textContent = letter;
    if (!side.player) return;
    cell.appendChild(document.createTextNode(": "));
    var link = document.createElement("a");
    link.href = "/player/" + encodeURIComponent(side.player.id) + "/" + encodeURIComponent(side.character.code);
    var name = document.createElement("bdi");
    name.textContent = side.player.name;
    link.appendChild(name);
    cell.appendChild(link);
    cell.appendChild(document.createTextNode(" (" + side.character.name + ")"));
  }

  // One row of the result from a side of the API's answer (ForecastSideSerializer).
  function show(row, letter, side) {
    function out(name, text) {
      row.querySelector('[data-out="' + name + '"]').textContent = text;
    }
    sideLabel(row.querySelector('[data-out="side"]'), letter, side);
    out("rating", side.rating.display);
    out("probability", side.win_probability_display);
    out("after-win", side.after_win.rating.display);
    out("win-change", "(" + side.after_win.change_display + ")");
    out("after-loss", side.after_loss.rating.display);
    out("loss-change", "(" + side.after_loss.change_display + ")");
  }

  function stale(asked, state) {
    if (asked === state.asked) return false;
    console.debug("calculator: dropped the reply to older inputs");
    return true;
  }

  // --- The state in the URL ---------------------------------------------------------------

  // The address bar holds the form's inputs (the filled ones), as pressing Calculate would:
  // a copied URL shows the same result, which the server renders from it.
  function remember(form) {
    var query = new URLSearchParams();
    new FormData(form).forEach(function (value, name) {
      if (value !== "") query.append(name, value);
    });
    var text = query.toString();
    var address = window.location.pathname + (text ? "?" + text : "");
    if (address !== window.location.pathname + window.location.search) {
      window.history.replaceState(null, "", address);
    }
  }

  // Ask for the result of the form as it is now, once the inputs rest. `state.asked` counts
  // the requests meant: a reply to any but the latest is stale and dropped. The result says
  // whether it is up to date in aria-busy.
  function refresh(form, state) {
    var result = document.querySelector("[data-result]");
    var failed = document.querySelector("[data-failed]");
    if (!result) return;
    var sides = Array.prototype.map.call(form.querySelectorAll("fieldset[data-side]"), sideQuery);
    var asked = ++state.asked;
    remember(form);
    clearTimeout(state.timer);
    if (!sides[0] || !sides[1]) {
      result.hidden = true;
      failed.hidden = true;
      result.setAttribute("aria-busy", "false");
      return;
    }
    result.setAttribute("aria-busy", "true");
    state.timer = setTimeout(function () {
      var address = form.dataset.probabilityUrl + "?a=" + encodeURIComponent(sides[0]) +
        "&b=" + encodeURIComponent(sides[1]);
      fetch(address, { headers: { Accept: "application/json" } })
        .then(function (response) {
          if (!response.ok) throw new Error("HTTP " + response.status);
          return response.json();
        })
        .then(function (body) {
          if (stale(asked, state)) return;
          show(result.querySelector('[data-outcome="a"]'), "A", body.a);
          show(result.querySelector('[data-outcome="b"]'), "B", body.b);
          result.querySelector("[data-uncounted]").hidden = body.counts;
          var parts = result.querySelector("[data-chance-parts]");
          parts.textContent = body.chance_parts_display;
          parts.hidden = !body.chance_parts_display;
          result.querySelector("[data-spared-text]").textContent = body.spared_display;
          result.querySelector("[data-spared]").hidden = !body.spared_display;
          var calibrated = result.querySelector("[data-calibrated]");
          calibrated.textContent = body.calibrated_display;
          calibrated.hidden = !body.calibrated_display;
          result.hidden = false;
          failed.hidden = true;
          result.setAttribute("aria-busy", "false");
        })
        .catch(function () {
          if (stale(asked, state)) return;
          // No numbers rather than numbers of other inputs; the form still calculates.
          result.hidden = true;
          failed.hidden = false;
          result.setAttribute("aria-busy", "false");
        });
    }, REST_MS);
  }

  // --- Players ---------------------------------------------------------------------------

  function option(value, text) {
    var element = document.createElement("option");
    element.value = value;
    element.textContent = text;
    return element;
  }

  // A name as search compares it: case and spaces ignored (the API's names are shown
  // ones, without invisible characters).
  function nameKey(name) {
    return name.replace(/\s+/g, "").toUpperCase();
  }

  // The players going by exactly the typed name, now or before (usually one), as the
  // server's matches.selectors.calculator.players_meant.
  function namedExactly(fieldset, hits) {
    var typed = nameKey(field(fieldset, "name").value);
    return hits.filter(function (hit) {
      return typed && (nameKey(hit.name) === typed || nameKey(hit.matched_name) === typed);
    });
  }

  // Offer the characters of `players`; several players of one name are told apart by
  // their summary (main character and rating, platform, last seen).
  function offer(fieldset, players) {
    var select = fieldset.querySelector("[data-character]");
    select.textContent = "";
    var retired = (fieldset.closest("[data-calculator]").dataset.retired || "").split(" ");
    players.forEach(function (hit) {
      var current = hit.ratings.filter(function (rating) {
        return retired.indexOf(rating.character.code) < 0;
      });
      (current.length ? current : hit.ratings).forEach(function (rating) {
        var text = rating.character.name + " \u00b7 " + rating.rating.display;
        if (players.length > 1) text += " \u2014 " + hit.summary_display;
        var element = option(rating.character.code, text);
        element.dataset.player = hit.id;
        select.appendChild(element);
      });
    });
    field(fieldset, "player").value = select.options.length ? select.options[0].dataset.player : "";
    field(fieldset, "rating").value = "";
    field(fieldset, "uncertainty").value = "";
  }

  function unpick(fieldset) {
    var select = fieldset.querySelector("[data-character]");
    field(fieldset, "player").value = "";
    select.textContent = "";
    select.appendChild(option("", "pick a player first"));
  }

  // Offer the players the typed name means among the latest suggestions, if any.
  function offerNamed(fieldset) {
    var players = namedExactly(fieldset, fieldset.hits);
    if (players.length) offer(fieldset, players);
    else unpick(fieldset);
    return players.length > 0;
  }

  function enhance(form) {
    var state = { asked: 0, timer: null };
    var recompute = function () { refresh(form, state); };
    Array.prototype.forEach.call(form.querySelectorAll("fieldset[data-side]"), function (fieldset) {
      var name = field(fieldset, "name");
      fieldset.hits = [];
      window.PlayerSuggest.attach(name, {
        onPick: function (hit) {
          name.value = hit.name;
          offer(fieldset, [hit]);
          recompute();
        },
        onResults: function (hits) {
          fieldset.hits = hits;
          if (!field(fieldset, "player").value && offerNamed(fieldset)) recompute();
        },
      });
      name.addEventListener("input", function () {
        offerNamed(fieldset);
        recompute();
      });
      fieldset.querySelector("[data-character]").addEventListener("change", function (event) {
        var chosen = event.target.options[event.target.selectedIndex];
        if (chosen && chosen.dataset.player) field(fieldset, "player").value = chosen.dataset.player;
        recompute();
      });
      ["rating", "uncertainty"].forEach(function (name) {
        field(fieldset, name).addEventListener("input", function () {
          if (field(fieldset, "player").value || field(fieldset, "name").value) {
            field(fieldset, "name").value = "";
            unpick(fieldset);
          }
          recompute();
        });
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("form[data-calculator]"), enhance);
  });
})();
