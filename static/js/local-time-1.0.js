/* local-time-1.0.js: times in the reader's time zone, as an enhancement.
 *
 * The server writes every moment as <time datetime="...Z" title="... UTC" data-local="FORM">
 * with its text in UTC (players.templatetags.ratings.moment, the views' Moment texts); this
 * writes the text again in the browser's time zone, in the same form, and leaves the UTC
 * moment in the title. An element marked data-local-zone gets the zone's name.
 */
(function () {
  "use strict";

  var MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

  function pad(number) { return (number < 10 ? "0" : "") + number; }

  function day(date) { return date.getFullYear() + "-" + pad(date.getMonth() + 1) + "-" + pad(date.getDate()); }

  function time(date) { return pad(date.getHours()) + ":" + pad(date.getMinutes()); }

  var FORMS = {
    day: day,
    time: time,
    datetime: function (date) { return day(date) + " " + time(date); },
    "month-day-time": function (date) { return MONTHS[date.getMonth()] + " " + date.getDate() + ", " + time(date); }
  };

  function zoneName() {
    try {
      return Intl.DateTimeFormat().resolvedOptions().timeZone || "local time";
    } catch (error) {
      return "local time";
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("time[data-local]"), function (element) {
      var form = FORMS[element.getAttribute("data-local")];
      var date = new Date(element.getAttribute("datetime"));
      if (form && !isNaN(date.getTime())) element.textContent = form(date);
    });
    Array.prototype.forEach.call(document.querySelectorAll("[data-local-zone]"), function (element) {
      element.textContent = zoneName();
    });
  });
})();
