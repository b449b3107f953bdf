(function () {
  var q = document.getElementById("q"), fam = document.getElementById("fam");
  var items = Array.prototype.slice.call(document.querySelectorAll("[data-text]"));
  function apply() {
    var text = q.value.trim().toLowerCase(), f = fam.value;
    items.forEach(function (el) {
      var ok = (!text || el.getAttribute("data-text").indexOf(text) >= 0) &&
        (!f || el.getAttribute("data-fam") === f || el.getAttribute("data-action") === f);
      el.classList.toggle("hide", !ok);
    });
  }
  q.addEventListener("input", apply);
  fam.addEventListener("change", apply);
})();
