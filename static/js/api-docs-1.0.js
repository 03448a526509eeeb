/* api-docs-1.0.js: the API docs follow the reader's colour scheme. Swagger UI ships a dark
 * theme under html.dark-mode, switched only by a toggle of a layout the page does not use;
 * this sets the class from prefers-color-scheme, before the page paints, and on changes. */
(function () {
  "use strict";
  var dark = window.matchMedia("(prefers-color-scheme: dark)");
  function follow() { document.documentElement.classList.toggle("dark-mode", dark.matches); }
  follow();
  if (dark.addEventListener) dark.addEventListener("change", follow);
})();
