// Pool page: queue a build without leaving the page and follow its progress.
// Without JavaScript the form posts normally and the page shows the status on reload.
(function () {
  "use strict";
  const form = document.getElementById("pool-build-form");
  const box = document.getElementById("pool-build-status");
  if (!form || !box) return;
  const statusUrl = form.dataset.statusUrl;
  const button = form.querySelector("button");
  const progress = box.querySelector(".progress");
  const bar = box.querySelector(".progress-bar");
  const fill = bar ? bar.querySelector("span") : null;
  const csrf = form.querySelector("input[name=csrfmiddlewaretoken]").value;

  function field(name) {
    return box.querySelector('[data-field="' + name + '"]');
  }

  function showError(text) {
    const error = field("error");
    if (!error) return;
    error.textContent = text || "";
    error.hidden = !text;
  }

  function show(state) {
    const done = state.topics_done || 0;
    const total = state.topics_total || 0;
    const line = box.querySelector(".status-line");
    if (!field("status")) {
      line.innerHTML = 'Build <span data-field="build"></span>: <span class="status" data-field="status"></span>, ' +
        '<span data-field="done"></span> of <span data-field="total"></span> topics';
    }
    if (field("build")) field("build").textContent = state.build;
    field("status").textContent = state.status;
    field("status").className = "status status-" + state.status;
    field("done").textContent = done;
    field("total").textContent = total;
    const running = state.status === "pending" || state.status === "running";
    const note = field("note");
    if (note) {
      // The reaper re-queued this build after its worker stopped beating (kernel/queue.py).
      note.hidden = !(running && state.attempts > 1 && state.worker_lost_at);
      if (!note.hidden) {
        note.textContent = "The worker died at " + new Date(state.worker_lost_at).toLocaleString() +
          "; re-run (attempt " + state.attempts + ").";
      }
    }
    showError(state.status === "failed" ? state.error : "");
    progress.hidden = !running;
    bar.setAttribute("aria-valuemax", total);
    bar.setAttribute("aria-valuenow", done);
    fill.style.width = total ? (100 * done / total).toFixed(1) + "%" : "0";
    return running;
  }

  function poll() {
    fetch(statusUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.json(); })
      .then(function (state) {
        if (show(state)) {
          window.setTimeout(poll, 1000);
        } else if (state.status === "done" || state.status === "failed") {
          window.location.reload(); // the figures below changed
        }
      })
      .catch(function () { window.setTimeout(poll, 3000); });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    button.disabled = true;
    fetch(form.action, {
      method: "POST",
      headers: { Accept: "application/json", "X-CSRFToken": csrf },
      credentials: "same-origin",
    })
      .then(function (response) {
        if (response.status === 503) {
          // The task queue is unavailable: nothing was queued; say so and let them retry.
          return response.json().then(function (state) {
            button.disabled = false;
            show(state);
            showError(state.detail);
          });
        }
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json().then(function (state) {
          button.disabled = false; // a second build is harmless: builds are idempotent
          show(state);
          window.setTimeout(poll, 500);
        });
      })
      .catch(function () { button.disabled = false; form.submit(); });
  });

  if (box.dataset.status === "pending" || box.dataset.status === "running") poll();
})();
