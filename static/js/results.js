/* Results page charts: the runs' means and the chosen run's per-topic values (Chart.js,
   served from node_modules). The data comes from the page itself (json_script). */
(function () {
  "use strict";
  var source = document.getElementById("results-chart-data");
  if (!source || typeof Chart === "undefined") return;
  var data = JSON.parse(source.textContent);
  var palette = ["#2f5bd3", "#1f7a4d", "#c27c0e", "#8e44ad", "#b42318"];

  var means = document.getElementById("means-chart");
  if (means) {
    new Chart(means, {
      type: "bar",
      data: {
        labels: data.runs,
        datasets: data.measures.map(function (m, i) {
          return { label: m.label, data: m.values, backgroundColor: palette[i % palette.length] };
        }),
      },
      options: {
        responsive: true,
        animation: false,
        scales: { y: { beginAtZero: true, suggestedMax: data.measures[0].key === "ar" ? 3 : 1 } },
        plugins: { legend: { position: "bottom" } },
      },
    });
  }

  var topics = document.getElementById("topic-chart");
  if (topics) {
    new Chart(topics, {
      type: "bar",
      data: {
        labels: data.topics,
        datasets: [{ label: data.topic_measure, data: data.topic_values, backgroundColor: palette[0] }],
      },
      options: {
        responsive: true,
        animation: false,
        scales: { y: { beginAtZero: true }, x: { ticks: { autoSkip: true, maxRotation: 60 } } },
        plugins: { legend: { display: false }, title: { display: true, text: data.topic_run } },
      },
    });
  }
})();
