// The judging page's active time: time with the tab visible, counted from the assessor's own
// activity (keys, clicks, scrolling, the mouse); an idle gap over two minutes is not counted,
// so a tab left open over lunch does not make a judgment look slow. static/js/judge.js sends
// seconds() with each submit and resets the clock for the next item.
(function () {
  "use strict";

  var IDLE_LIMIT_MS = 120000;

  function visibleSince(now) { return document.visibilityState === "visible" ? now : null; }

  var clock = {
    totalMs: 0,
    last: visibleSince(Date.now()),
    activity: function () {
      var now = Date.now();
      if (this.last !== null) {
        var gap = now - this.last;
        if (gap <= IDLE_LIMIT_MS) this.totalMs += gap;
      }
      this.last = visibleSince(now);
    },
    seconds: function () {
      this.activity();
      return Math.round(this.totalMs / 100) / 10;
    },
    reset: function () {
      this.totalMs = 0;
      this.last = visibleSince(Date.now());
    },
  };

  var lastMove = 0;
  ["keydown", "mousedown", "wheel", "touchstart", "scroll"].forEach(function (type) {
    window.addEventListener(type, function () { clock.activity(); }, { passive: true, capture: true });
  });
  window.addEventListener("mousemove", function () {
    var now = Date.now();
    if (now - lastMove > 1000) { lastMove = now; clock.activity(); }
  }, { passive: true });
  // A hidden tab's time is not counted; coming back starts counting again from now.
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") clock.last = Date.now();
    else { clock.activity(); clock.last = null; }
  });

  window.qrelsmithActiveClock = clock;
})();
