/* matchups-1.0.js: a matchup cell's details on a tap, a click or Enter, as an enhancement
 * (without it, each cell's title shows the same lines on hover).
 *
 * Every cell of table.matrix (the averages aside) gets a button. One of them is in the tab
 * order at a time, and the arrow keys, Home and End move between them, so that the table
 * is one stop for Tab rather than seven hundred. Pressing a button shows its cell's lines
 * in #cell-details; Escape or the panel's Close button hides them and gives the focus back.
 */
(function () {
  "use strict";

  function buttonIn(cell) {
    return cell ? cell.querySelector("button.cell") : null;
  }

  function neighbour(table, button, key) {
    var cell = button.parentNode;
    var row = cell.parentNode;
    var rows = table.tBodies[0].rows;
    var buttons = row.querySelectorAll("button.cell");
    switch (key) {
      case "ArrowLeft": return buttonIn(row.cells[cell.cellIndex - 1]);
      case "ArrowRight": return buttonIn(row.cells[cell.cellIndex + 1]);
      case "ArrowUp": return rows[row.sectionRowIndex - 1] ? buttonIn(rows[row.sectionRowIndex - 1].cells[cell.cellIndex]) : null;
      case "ArrowDown": return rows[row.sectionRowIndex + 1] ? buttonIn(rows[row.sectionRowIndex + 1].cells[cell.cellIndex]) : null;
      case "Home": return buttons[0];
      case "End": return buttons[buttons.length - 1];
    }
    return null;
  }

  function enhance(table, panel) {
    var text = panel.querySelector(".cell-details-text");
    var shown = null;  // the button whose details the panel holds
    var cells = table.tBodies[0].querySelectorAll("td[title]:not(.avg)");
    Array.prototype.forEach.call(cells, function (cell, index) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "cell";
      button.tabIndex = index === 0 ? 0 : -1;
      button.setAttribute("aria-controls", panel.id);
      button.setAttribute("aria-expanded", "false");
      while (cell.firstChild) button.appendChild(cell.firstChild);
      cell.appendChild(button);
    });

    function focus(button) {
      Array.prototype.forEach.call(table.querySelectorAll("button.cell[tabindex='0']"), function (other) {
        other.tabIndex = -1;
      });
      button.tabIndex = 0;
      button.focus();
    }

    function show(button) {
      if (shown) shown.setAttribute("aria-expanded", "false");
      shown = button;
      button.setAttribute("aria-expanded", "true");
      text.textContent = button.parentNode.getAttribute("title");
      panel.hidden = false;
    }

    function hide() {
      if (!shown) return;
      shown.setAttribute("aria-expanded", "false");
      panel.hidden = true;
      shown.focus();
      shown = null;
    }

    table.addEventListener("click", function (event) {
      var button = event.target.closest("button.cell");
      if (!button) return;
      focus(button);
      show(button);
    });
    table.addEventListener("keydown", function (event) {
      var button = event.target.closest("button.cell");
      if (!button) return;
      var target = neighbour(table, button, event.key);
      if (!target) return;
      event.preventDefault();
      focus(target);
      if (shown) show(target);  // an open panel follows the focus
    });
    panel.querySelector(".cell-details-close").addEventListener("click", hide);
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape") hide();
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var table = document.querySelector("table.matrix");
    var panel = document.getElementById("cell-details");
    if (table && panel) enhance(table, panel);
  });
})();
