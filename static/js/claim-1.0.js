/* claim-1.0.js: the claim page follows its claim (players.views.ownership.claim_status).
 *
 * Asks every 5 seconds while the claim waits; shows the state's message, and the owner key
 * in the one answer that carries it. Without script, reloading the page does the same.
 */
(function () {
  "use strict";

  var box = document.getElementById("claim");
  if (!box || box.getAttribute("data-state") !== "waiting") { return; }
  var message = document.getElementById("claim-message");
  var keyBox = document.getElementById("claim-key");
  var keyText = document.getElementById("claim-key-text");

  function show(answer) {
    message.textContent = answer.message;
    if (answer.key) {
      keyText.textContent = answer.key;
      keyBox.hidden = false;
    }
    if (answer.state === "expired" || answer.state === "closed") { message.className = "claim-message warning"; }
    return answer.state === "waiting";
  }

  function poll() {
    fetch(box.getAttribute("data-status"), {credentials: "same-origin", cache: "no-store"})
      .then(function (response) { return response.json(); })
      .then(function (answer) { if (show(answer)) { window.setTimeout(poll, 5000); } })
      .catch(function () { window.setTimeout(poll, 15000); });
  }

  window.setTimeout(poll, 5000);
})();
