/* Users list — progressive enhancement only: "select all on this page" and a count of the selected
   rows. Without it each row's checkbox still posts, and the server asks for confirmation anyway. */
(function () {
  "use strict";
  var all = document.querySelector("[data-select-all]");
  var boxes = Array.prototype.slice.call(document.querySelectorAll("[data-select]"));
  var count = document.querySelector("[data-bulk-count]");
  if (!all || boxes.length === 0) return;
  all.hidden = false;

  function update() {
    var selected = boxes.filter(function (box) { return box.checked; }).length;
    all.checked = selected === boxes.length;
    all.indeterminate = selected > 0 && selected < boxes.length;
    if (count) count.textContent = selected === 0 ? "" : selected === 1 ? "1 selected" : selected + " selected";
  }

  all.addEventListener("change", function () {
    boxes.forEach(function (box) { box.checked = all.checked; });
    update();
  });
  boxes.forEach(function (box) { box.addEventListener("change", update); });
  update();
})();
