/* calculator-1.0.js: the calculator's name suggestions and live result, as an enhancement
 * (the page works as a plain form without it).
 *
 * Typing a name fills the side's <datalist> from the player search API; a name that is a
 * suggestion picks that player and offers only the characters they have ratings for. The
 * result follows every change, computed with the formulas of matches/ratings/glicko.py
 * (docs/rating-model.md#the-update and #which-games-count); tests/browser/test_calculator.py checks that the numbers agree
 * with the server's.
 */
(function () {
  "use strict";

  var Q = Math.log(10) / 400;
  var MINUS = "\u2212";
  var SUGGESTIONS = 10;

  // --- The rating math (matches/ratings/glicko.py) ---------------------------------------

  function g(deviation) {
    return 1 / Math.sqrt(1 + (3 * Q * Q * deviation * deviation) / (Math.PI * Math.PI));
  }

  function winProbability(a, b) {
    var combined = Math.sqrt(a.deviation * a.deviation + b.deviation * b.deviation);
    return 1 / (1 + Math.pow(10, (-g(combined) * (a.value - b.value)) / 400));
  }

  // matches.selectors.calibration.Calibration.shown: the model's log-odds over the
  // temperature the lab fitted (1 until it has: the probability as the model gives it).
  function shownProbability(raw, temperature) {
    if (temperature === 1) return raw;
    var p = Math.min(Math.max(raw, 1e-12), 1 - 1e-12);
    var logit = Math.max(-15, Math.min(15, Math.log(p / (1 - p))));
    return 1 / (1 + Math.exp(-logit / temperature));
  }

  function update(me, them, score, params) {
    var gThem = g(them.deviation);
    var e = 1 / (1 + Math.pow(10, ((-gThem * (me.value - them.value)) / 400) * (1 - params.updateDamping)));
    var denominator = 1 / (me.deviation * me.deviation) + Q * Q * gThem * gThem * e * (1 - e);
    return {
      value: me.value + (Q / denominator) * gThem * (score - e),
      deviation: Math.max(Math.sqrt(1 / denominator), params.minimumDeviation),
    };
  }

  function gameCounts(a, b, params) {
    if (!a.eligible || !b.eligible) return false;
    var p = winProbability(a, b);
    var margin = params.countingMargin;
    // The winner's expectation lies inside the margin for one winner iff for the other.
    var even = margin < p && p < 1 - margin;
    var rms = Math.sqrt((a.deviation * a.deviation + b.deviation * b.deviation) / 2);
    return even || rms >= params.countingRmsDeviation;
  }

  // --- How numbers read (players/formatting.py, players.templatetags.ratings) ------------

  function ratingText(rating) {
    // players.formatting.uncertainty_text: the ± rounded down.
    return rating.value.toFixed(0) + " \u00b1" + Math.floor(2 * rating.deviation);
  }

  function percent(share) {
    return (100 * share).toFixed(1) + "%";
  }

  function signed(change) {
    var text = Math.abs(change).toFixed(1);
    if (parseFloat(text) === 0) return text;
    return (change > 0 ? "+" : MINUS) + text;
  }

  // --- The form ---------------------------------------------------------------------------

  function field(fieldset, name) {
    return fieldset.querySelector('[name="' + fieldset.dataset.side + "-" + name + '"]');
  }

  // A side's rating: the picked player's character, else the typed numbers; null if neither.
  function contender(fieldset) {
    var select = fieldset.querySelector("[data-character]");
    var option = select.options[select.selectedIndex];
    if (field(fieldset, "player").value && option && option.dataset.value) {
      return {
        value: parseFloat(option.dataset.value),
        deviation: parseFloat(option.dataset.deviation),
        eligible: select.dataset.eligible !== "0",
        player: option.dataset.player,
        name: option.dataset.playerName,
        code: option.value,
        characterName: option.dataset.name,
      };
    }
    var value = parseFloat(field(fieldset, "rating").value);
    var plusMinus = parseFloat(field(fieldset, "uncertainty").value);
    if (!(value >= 0 && value <= 5000 && plusMinus >= 2 && plusMinus <= 700)) return null;
    return { value: value, deviation: plusMinus / 2, eligible: true };
  }

  function sideLabel(cell, letter, side) {
    cell.textContent = letter;
    if (!side.player) return;
    cell.appendChild(document.createTextNode(": "));
    var link = document.createElement("a");
    link.href = "/player/" + encodeURIComponent(side.player) + "/" + encodeURIComponent(side.code);
    var name = document.createElement("bdi");
    name.textContent = side.name;
    link.appendChild(name);
    cell.appendChild(link);
    cell.appendChild(document.createTextNode(" (" + side.characterName + ")"));
  }

  function show(row, letter, side, probability, afterWin, afterLoss, temperature) {
    function out(name, text) {
      row.querySelector('[data-out="' + name + '"]').textContent = text;
    }
    sideLabel(row.querySelector('[data-out="side"]'), letter, side);
    out("rating", ratingText(side));
    out("probability", percent(shownProbability(probability, temperature)));
    out("after-win", ratingText(afterWin));
    out("win-change", "(" + signed(afterWin.value - side.value) + ")");
    out("after-loss", ratingText(afterLoss));
    out("loss-change", "(" + signed(afterLoss.value - side.value) + ")");
  }

  function refresh(form, params) {
    var sides = Array.prototype.map.call(form.querySelectorAll("fieldset[data-side]"), contender);
    var result = document.querySelector("[data-result]");
    if (!result) return;
    if (!sides[0] || !sides[1]) {
      result.hidden = true;
      return;
    }
    var a = sides[0], b = sides[1];
    var counts = gameCounts(a, b, params);
    function after(me, them, score) {
      return counts ? update(me, them, score, params) : me;
    }
    var p = winProbability(a, b);
    var t = params.temperature;
    show(result.querySelector('[data-outcome="a"]'), "A", a, p, after(a, b, 1), after(a, b, 0), t);
    show(result.querySelector('[data-outcome="b"]'), "B", b, 1 - p, after(b, a, 1), after(b, a, 0), t);
    result.querySelector("[data-uncounted]").hidden = counts;
    result.hidden = false;
  }

  // --- Suggestions ------------------------------------------------------------------------

  function option(value, text) {
    var element = document.createElement("option");
    element.value = value;
    element.textContent = text;
    return element;
  }

  // Offer the characters of the players going by exactly this name, now or before, in any
  // case (usually one player), as the server's matches.selectors.calculator.players_meant.
  function pick(fieldset, hits) {
    var name = field(fieldset, "name").value.trim().toLowerCase();
    var select = fieldset.querySelector("[data-character]");
    var players = hits.filter(function (hit) {
      return hit.name.toLowerCase() === name || hit.matched_name.toLowerCase() === name;
    });
    if (!players.length) return false;
    select.textContent = "";
    select.dataset.eligible = "1";
    players.forEach(function (hit, index) {
      hit.ratings.forEach(function (rating) {
        var text = rating.character.name + " \u00b7 " + rating.rating.display;
        if (players.length > 1) text += " \u00b7 player " + (index + 1) + (hit.platform ? " (" + hit.platform + ")" : "");
        var element = option(rating.character.code, text);
        element.dataset.value = rating.rating.value;
        element.dataset.deviation = rating.rating.deviation;
        element.dataset.player = hit.id;
        element.dataset.playerName = hit.name;
        element.dataset.name = rating.character.name;
        select.appendChild(element);
      });
    });
    field(fieldset, "player").value = select.options.length ? select.options[0].dataset.player : "";
    field(fieldset, "rating").value = "";
    field(fieldset, "uncertainty").value = "";
    return true;
  }

  function unpick(fieldset) {
    var select = fieldset.querySelector("[data-character]");
    field(fieldset, "player").value = "";
    select.textContent = "";
    select.appendChild(option("", "pick a player first"));
  }

  function suggest(fieldset, url, then) {
    var query = field(fieldset, "name").value.trim();
    var list = fieldset.querySelector("[data-suggestions]");
    if (query.length < 2) return;
    var address = url + "?limit=" + SUGGESTIONS + "&name=" + encodeURIComponent(query);
    fetch(address, { headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : { results: [] }; })
      .then(function (body) {
        if (field(fieldset, "name").value.trim() !== query) return; // typed on meanwhile
        fieldset.hits = body.results;
        list.textContent = "";
        body.results.forEach(function (hit) {
          var codes = hit.ratings.slice(0, 4).map(function (r) {
            return r.character.code + " " + r.rating.value.toFixed(0);
          });
          var past = hit.matched_name !== hit.name ? "formerly " + hit.matched_name + " \u00b7 " : "";
          list.appendChild(option(hit.name, past + codes.join(", ")));
        });
        then();
      })
      .catch(function () { /* no suggestions: the form still works */ });
  }

  function enhance(form) {
    var params = {
      minimumDeviation: parseFloat(form.dataset.minimumDeviation),
      updateDamping: parseFloat(form.dataset.updateDamping),
      countingMargin: parseFloat(form.dataset.countingMargin),
      countingRmsDeviation: parseFloat(form.dataset.countingRmsDeviation),
      temperature: parseFloat(form.dataset.temperature),
    };
    var recompute = function () { refresh(form, params); };
    Array.prototype.forEach.call(form.querySelectorAll("fieldset[data-side]"), function (fieldset) {
      var timer = null;
      fieldset.hits = [];
      field(fieldset, "name").addEventListener("input", function () {
        if (!pick(fieldset, fieldset.hits)) {
          unpick(fieldset);
          clearTimeout(timer);
          timer = setTimeout(function () {
            suggest(fieldset, form.dataset.searchUrl, function () {
              if (pick(fieldset, fieldset.hits)) recompute();
            });
          }, 200);
        }
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
