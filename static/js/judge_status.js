// The judging page's status line (#judge-status): what became of the last action, with an
// optional button ("Retry now", "Discard"). Good news and hints fade; errors stay until the
// next message replaces them.
(function () {
  "use strict";

  var timer = null;
  function show(text, kind, action, showMs) {
    var box = document.querySelector("#judge-status");
    if (!box) return;
    clearTimeout(timer);
    box.className = "judge-status" + (kind ? " is-" + kind : "");
    box.textContent = text;
    if (action) {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = action.label;
      button.addEventListener("click", action.run);
      box.appendChild(button);
    }
    box.hidden = !text;
    if (kind === "saved" || kind === "info") {
      timer = setTimeout(function () { box.hidden = true; }, showMs || 2500);
    }
  }

  window.qrelsmithJudgeStatus = { show: show };
})();
