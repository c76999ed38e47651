/* Qrels page: draw each evaluation's progress bar, and follow running evaluations until they
   finish, then reload to show the link (or the reason it failed). */
(function () {
  "use strict";
  function draw(bar, done, total) {
    bar.querySelector("span").style.width = (total ? Math.round((100 * done) / total) : 0) + "%";
  }

  document.querySelectorAll(".job .progress-bar").forEach(function (bar) {
    draw(bar, Number(bar.getAttribute("aria-valuenow")), Number(bar.getAttribute("aria-valuemax")));
  });

  var running = document.querySelectorAll('.job[data-status="pending"], .job[data-status="running"]');
  running.forEach(function (job) {
    var bar = job.querySelector(".progress-bar");
    var label = job.querySelector(".progress-label");
    var status = job.querySelector(".status");
    var note = job.querySelector(".job-note");
    function poll() {
      fetch(job.dataset.progressUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (r) { return r.json(); })
        .then(function (p) {
          draw(bar, p.runs_done, p.runs_total);
          bar.setAttribute("aria-valuenow", p.runs_done);
          label.textContent = p.runs_done + " of " + p.runs_total + " runs";
          status.textContent = p.status;
          if (note && p.attempts > 1 && p.worker_lost_at) {
            // The reaper re-queued this job after its worker stopped beating (kernel/queue.py).
            note.textContent = "The worker died at " + new Date(p.worker_lost_at).toLocaleString() +
              "; re-run (attempt " + p.attempts + ").";
            note.hidden = false;
          }
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
