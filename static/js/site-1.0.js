/* site-1.0.js: sortable tables, as an enhancement (every page works without it).
 *
 * A <table data-sortable> gets a button in each column heading; pressing it sorts the
 * body rows by that column (a cell's data-sort attribute, else its text), descending
 * first for numbers, and marks the heading with aria-sort.
 */
(function () {
  "use strict";

  function cellValue(row, index) {
    var cell = row.children[index];
    if (!cell) return "";
    var raw = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
    var number = parseFloat(raw);
    return isNaN(number) || !/^-?[\d.]/.test(raw) ? raw.toLowerCase() : number;
  }

  function sortBy(table, heading, index) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var numeric = rows.length && typeof cellValue(rows[0], index) === "number";
    var current = heading.getAttribute("aria-sort");
    var descending = current ? current === "ascending" : numeric;
    rows.sort(function (a, b) {
      var x = cellValue(a, index), y = cellValue(b, index);
      if (x === y) return 0;
      var order = x < y ? -1 : 1;
      return descending ? -order : order;
    });
    Array.prototype.forEach.call(heading.parentNode.children, function (th) {
      th.removeAttribute("aria-sort");
    });
    heading.setAttribute("aria-sort", descending ? "descending" : "ascending");
    rows.forEach(function (row) { body.appendChild(row); });
  }

  function enhance(table) {
    var headings = table.tHead ? table.tHead.rows[0].children : [];
    Array.prototype.forEach.call(headings, function (heading, index) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (heading.firstChild) button.appendChild(heading.firstChild);
      heading.appendChild(button);
      button.addEventListener("click", function () { sortBy(table, heading, index); });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("table[data-sortable]"), enhance);
  });
})();
