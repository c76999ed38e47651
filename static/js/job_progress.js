/* Background jobs (pool builds, evaluations): follow each until it finishes, then reload the
   page to show what it made or why it failed. One poller for every job on every page.

   A job box carries data-job-progress, data-progress-url (its JSON status), data-status, and
   data-done-key / data-total-key (the JSON's counters: "topics_done", "runs_done", ...). Inside,
   any of: [data-field=status|build|done|total|line|empty|note|error], a .progress-bar with a <span> fill, a
   .progress wrapper hidden while nothing runs, and [data-state=KEY] elements showing the JSON's KEY.
   A form with data-job-start="BOX_ID" queues a job without leaving the page; without JavaScript
   it posts normally and the page shows the status on reload. */
(function () {
  "use strict";

  function field(box, name) {
    return box.querySelector('[data-field="' + name + '"]');
  }

  function setText(box, name, text) {
    var element = field(box, name);
    if (element) element.textContent = text;
  }

  function isRunning(status) {
    return status === "pending" || status === "running";
  }

  function showError(box, text) {
    var error = field(box, "error");
    if (!error) return;
    error.textContent = text || "";
    error.hidden = !text;
  }

  function drawBar(box, done, total) {
    var bar = box.querySelector(".progress-bar");
    if (!bar) return;
    bar.setAttribute("aria-valuenow", done);
    bar.setAttribute("aria-valuemax", total);
    var fill = bar.querySelector("span");
    if (fill) fill.style.width = total ? ((100 * done) / total).toFixed(1) + "%" : "0";
  }

  function show(box, state) {
    var done = state[box.dataset.doneKey] || 0;
    var total = state[box.dataset.totalKey] || 0;
    var running = isRunning(state.status);
    box.dataset.status = state.status;
    setText(box, "status", state.status);
    var status = field(box, "status");
    if (status) status.className = "status status-" + state.status;
    if (state.build !== undefined) setText(box, "build", state.build);
    setText(box, "done", done);
    setText(box, "total", total);
    drawBar(box, done, total);
    var line = field(box, "line");
    if (line) line.hidden = false;
    var empty = field(box, "empty");
    if (empty) empty.hidden = true;
    var progress = box.querySelector(".progress");
    if (progress) progress.hidden = !running;
    var note = field(box, "note");
    if (note) {
      // The reaper queued this job again after its worker stopped beating (kernel/queue.py).
      note.hidden = !(running && state.attempts > 1 && state.worker_lost_at);
      if (!note.hidden) {
        note.textContent = "The worker died at " + new Date(state.worker_lost_at).toLocaleString() +
          "; re-run (attempt " + state.attempts + ").";
      }
    }
    // Any other figure the job reports (tokens, cost, ...): an element naming its key.
    box.querySelectorAll("[data-state]").forEach(function (element) {
      var value = state[element.dataset.state];
      if (value !== undefined && value !== null) element.textContent = value;
    });
    showError(box, state.status === "failed" ? state.error : "");
    return running;
  }

  function follow(box) {
    fetch(box.dataset.progressUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.json(); })
      .then(function (state) {
        if (show(box, state)) {
          window.setTimeout(function () { follow(box); }, 1000);
        } else if (state.status === "done" || state.status === "failed") {
          window.location.reload(); // what the job made (or its failure) is on the page
        }
      })
      .catch(function () { window.setTimeout(function () { follow(box); }, 3000); });
  }

  function startFrom(form) {
    var box = document.getElementById(form.dataset.jobStart);
    var button = form.querySelector("button");
    var csrf = form.querySelector("input[name=csrfmiddlewaretoken]").value;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      button.disabled = true;
      fetch(form.action, {
        method: "POST",
        headers: { Accept: "application/json", "X-CSRFToken": csrf },
        credentials: "same-origin",
        body: new FormData(form), // the form's choices (a pool build's strategy), if any
      })
        .then(function (response) {
          if (response.status === 503) {
            // The task queue is unavailable: nothing was queued; say so and let them retry.
            return response.json().then(function (state) {
              button.disabled = false;
              show(box, state);
              showError(box, state.detail);
            });
          }
          if (!response.ok) throw new Error("HTTP " + response.status);
          return response.json().then(function (state) {
            button.disabled = false; // a second job is harmless: jobs are idempotent
            show(box, state);
            window.setTimeout(function () { follow(box); }, 500);
          });
        })
        .catch(function () { button.disabled = false; form.submit(); });
    });
  }

  document.querySelectorAll("[data-job-progress]").forEach(function (box) {
    var bar = box.querySelector(".progress-bar");
    if (bar) drawBar(box, Number(bar.getAttribute("aria-valuenow")), Number(bar.getAttribute("aria-valuemax")));
    if (isRunning(box.dataset.status)) follow(box);
  });
  document.querySelectorAll("form[data-job-start]").forEach(startFrom);
})();
