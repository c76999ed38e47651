/* Submit a select's form as soon as it changes (<select data-autosubmit>): no inline handlers. */
(function () {
  "use strict";
  document.querySelectorAll("select[data-autosubmit]").forEach(function (select) {
    select.addEventListener("change", function () { select.form.submit(); });
  });
})();
