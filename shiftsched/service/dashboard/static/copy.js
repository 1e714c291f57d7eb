// Progressive enhancement: a "Copy" button for each element marked data-copy-from.
// Without JavaScript the key stays visible and selectable; the button stays hidden.
document.querySelectorAll("button[data-copy-from]").forEach(function (button) {
  var source = document.getElementById(button.getAttribute("data-copy-from"));
  if (!source || !navigator.clipboard) {
    return;
  }
  var status = document.getElementById(button.getAttribute("data-copy-status"));
  button.hidden = false;
  button.addEventListener("click", function () {
    navigator.clipboard.writeText(source.textContent.trim()).then(
      function () { if (status) { status.textContent = "Copied."; } },
      function () { if (status) { status.textContent = "Copy failed: select the key and copy it."; } }
    );
  });
});
