/* Qrels page: draw each evaluation's progress bar from its aria values (no inline styles),
   and follow running evaluations until they finish, then reload to show the link. */
(function () {
  "use strict";
  document.querySelectorAll(".job .progress-bar").forEach(function (bar) {
    var total = Number(bar.getAttribute("aria-valuemax")) || 0;
    var done = Number(bar.getAttribute("aria-valuenow")) || 0;
    bar.querySelector("span").style.width = (total ? Math.round((100 * done) / total) : 0) + "%";
  });
  var running = document.querySelectorAll('.job[data-status="pending"], .job[data-status="running"]');
  running.forEach(function (job) {
    var bar = job.querySelector(".progress-bar");
    var fill = bar.querySelector("span");
    var label = job.querySelector(".progress-label");
    var status = job.querySelector(".status");
    function poll() {
      fetch(job.dataset.progressUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (r) { return r.json(); })
        .then(function (p) {
          var pct = p.runs_total ? Math.round((100 * p.runs_done) / p.runs_total) : 0;
          fill.style.width = pct + "%";
          bar.setAttribute("aria-valuenow", p.runs_done);
          label.textContent = p.runs_done + " of " + p.runs_total + " runs";
          status.textContent = p.status;
          if (p.status === "done" || p.status === "failed") {
            window.location.reload();
          } else {
            window.setTimeout(poll, 1000);
          }
        })
        .catch(function () { window.setTimeout(poll, 3000); });
    }
    poll();
  });
})();
