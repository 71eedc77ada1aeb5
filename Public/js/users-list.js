/* Users list — progressive enhancement only: "select all on this page", then "select all N
   matching" (every page of the filtered list), and a count of what is selected. Without it each
   row's checkbox still posts, and the server asks for confirmation anyway. */
(function () {
  "use strict";
  var all = document.querySelector("[data-select-all]");
  var boxes = Array.prototype.slice.call(document.querySelectorAll("[data-select]"));
  var count = document.querySelector("[data-bulk-count]");
  var matchingButton = document.querySelector("[data-select-matching]");
  var matching = document.querySelector("[data-matching]");
  if (!all || boxes.length === 0) return;
  all.hidden = false;

  function update() {
    var selected = boxes.filter(function (box) { return box.checked; }).length;
    all.checked = selected === boxes.length;
    all.indeterminate = selected > 0 && selected < boxes.length;
    if (matching && !all.checked) matching.value = "";
    var everyMatch = matching && matching.value === "yes";
    if (matchingButton) matchingButton.hidden = !all.checked || everyMatch;
    if (count) {
      count.textContent = everyMatch ? "All " + matchingButton.getAttribute("data-count") + " matching selected"
        : selected === 0 ? "" : selected === 1 ? "1 selected" : selected + " selected";
    }
  }

  all.addEventListener("change", function () {
    boxes.forEach(function (box) { box.checked = all.checked; });
    update();
  });
  boxes.forEach(function (box) { box.addEventListener("change", update); });
  if (matchingButton && matching) {
    matchingButton.addEventListener("click", function () {
      matching.value = "yes";
      update();
    });
  }
  update();
})();
