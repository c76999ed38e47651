// MathJax 3 configuration shared by every page that shows posts or topics.
// Load this file BEFORE {% static 'vendor/mathjax/tex-chtml.js' %}.
//
// Only formulas inside post bodies and topic text are typeset: base.html puts the
// "tex2jax_ignore" class on <body>, and MathJax resumes inside elements carrying one of the
// classes below. Mark any container of $...$ text with class="math" (post bodies use
// "post-body"; ARQMath formula spans are "math-container"). Pages that insert content later
// call window.qrelsmithTypeset(element).
window.MathJax = {
  tex: {
    inlineMath: [["$", "$"]],
    displayMath: [["$$", "$$"]],
    processEscapes: true,
  },
  options: {
    ignoreHtmlClass: "tex2jax_ignore",
    processHtmlClass: "math|post-body|math-container|tex2jax_process",
  },
  chtml: {
    // Fonts come with the npm package (served from /static/vendor/mathjax/): never a CDN.
    matchFontHeight: true,
  },
  startup: {
    typeset: true,
  },
};

window.qrelsmithTypeset = function (element) {
  if (window.MathJax && window.MathJax.typesetPromise) {
    return window.MathJax.typesetPromise(element ? [element] : undefined);
  }
  return Promise.resolve();
};
