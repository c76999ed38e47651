/* Organizer dashboard charts (Chart.js from node_modules) and small conveniences.
   Data comes from <script type="application/json"> blocks rendered by json_script. */
(function () {
  "use strict";

  function data(id) {
    var node = document.getElementById(id);
    return node ? JSON.parse(node.textContent) : null;
  }

  var ink = "#3d4657";
  var grid = "#eceff3";
  if (window.Chart) {
    Chart.defaults.color = ink;
    Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
    Chart.defaults.animation = false; // readable at once, and stable for screenshots
  }

  function kappaCharts() {
    var rounds = data("data-kappa");
    if (!rounds) return;
    document.querySelectorAll("canvas.kappa-chart").forEach(function (canvas) {
      var round = rounds[Number(canvas.dataset.chartIndex)];
      if (!round || !round.assessors.length) {
        canvas.insertAdjacentHTML("afterend", '<p class="empty">No shared judgments yet.</p>');
        canvas.remove();
        return;
      }
      // ARQMath Figures 3-4: each assessor's mean kappa, 4-way and H+M binary side by side.
      canvas.chart = new Chart(canvas, {
        type: "bar",
        data: {
          labels: round.assessors,
          datasets: [
            { label: "4-way κ", data: round.kappa, backgroundColor: "#2f5bd3" },
            { label: "Binary κ (H+M)", data: round.binary, backgroundColor: "#f0a830" },
          ],
        },
        options: {
          responsive: true,
          maintainAspectRatio: false,
          scales: {
            y: { suggestedMin: 0, suggestedMax: 1, grid: { color: grid }, title: { display: true, text: "mean Cohen's κ" } },
            x: { grid: { display: false } },
          },
          plugins: {
            legend: { position: "bottom" },
            tooltip: { callbacks: { label: function (c) {
              return c.dataset.label + ": " + (c.raw === null ? "n/a" : c.raw.toFixed(3));
            } } },
          },
        },
      });
      canvas.dataset.rendered = "true";
    });
  }

  function progressChart() {
    var d = data("data-progress");
    var canvas = document.getElementById("chart-progress");
    if (!d || !canvas) return;
    canvas.chart = new Chart(canvas, {
      type: "line",
      data: {
        labels: d.labels,
        datasets: [{ label: "judgments (cumulative)", data: d.values, borderColor: "#1f7a4d",
          backgroundColor: "rgba(31,122,77,.12)", fill: true, tension: 0.2, pointRadius: 2 }],
      },
      options: {
        responsive: true, maintainAspectRatio: false,
        // The axis follows the judgments made, not the pool's size: 16 judgments of 9,000 hits
        // would otherwise be a flat line at the bottom. Whole numbers only.
        scales: { y: { beginAtZero: true, ticks: { precision: 0 }, grid: { color: grid } }, x: { grid: { display: false } } },
        plugins: { legend: { display: false } },
      },
    });
    canvas.dataset.rendered = "true";
  }

  function histogramChart() {
    var d = data("data-histogram");
    var canvas = document.getElementById("chart-histogram");
    if (!d || !canvas) return;
    canvas.chart = new Chart(canvas, {
      type: "bar",
      data: { labels: d.labels, datasets: [{ label: "judgments", data: d.values, backgroundColor: "#7a8bb5" }] },
      options: {
        responsive: true, maintainAspectRatio: false,
        scales: { y: { beginAtZero: true, ticks: { precision: 0 }, grid: { color: grid } }, x: { grid: { display: false } } },
        plugins: { legend: { display: false } },
      },
    });
    canvas.dataset.rendered = "true";
  }

  function confirmForms() {
    document.querySelectorAll("form[data-confirm]").forEach(function (form) {
      form.addEventListener("submit", function (event) {
        if (!window.confirm(form.dataset.confirm)) event.preventDefault();
      });
    });
  }

  // "Live" pages reload every minute while visible, so kappas and progress follow the
  // assessors' latest judgments (the numbers are computed on every load).
  function liveReload() {
    var toggle = document.getElementById("live-toggle");
    if (!toggle) return;
    var key = "qrelsmith.live";
    toggle.checked = window.localStorage.getItem(key) !== "off";
    toggle.addEventListener("change", function () {
      window.localStorage.setItem(key, toggle.checked ? "on" : "off");
    });
    window.setInterval(function () {
      if (toggle.checked && document.visibilityState === "visible") window.location.reload();
    }, 60000);
  }

  document.addEventListener("DOMContentLoaded", function () {
    confirmForms();
    liveReload();
    if (!window.Chart) return;
    kappaCharts();
    progressChart();
    histogramChart();
  });
})();
