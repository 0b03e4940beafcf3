#include "base/serve/GalleryPage.h"

namespace streetgan {

const std::string& GalleryPage::html() {
    static const std::string page = R"HTML(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>StreetGAN gallery</title>
<style>
  html, body { margin: 0; padding: 0; background: #202124; color: #e8eaed; font: 14px sans-serif; }
  header { position: absolute; left: 0; top: 0; right: 0; height: 56px; display: flex; align-items: center;
           gap: 16px; padding: 0 16px; background: #2b2c30; box-sizing: border-box; }
  header h1 { font-size: 18px; margin: 0; font-weight: 600; }
  button { font: inherit; padding: 6px 14px; }
  #grid { position: absolute; left: 16px; top: 72px; width: 552px; height: 552px; image-rendering: pixelated; }
  #gif  { position: absolute; left: 584px; top: 72px; width: 256px; height: 256px; }
  #info { position: absolute; left: 584px; top: 344px; width: 360px; line-height: 1.6; }
  #info a { color: #8ab4f8; }
  #status { color: #fdd663; }
</style>
</head>
<body>
<header>
  <h1>StreetGAN gallery</h1>
  <button id="refresh" type="button">New seed</button>
  <label id="autoLabel"><input id="auto" type="checkbox" checked> refresh every <span id="every">10</span> s</label>
  <span id="model"></span>
</header>
<img id="grid" width="552" height="552" alt="grid of generated street images">
<img id="gif" width="256" height="256" alt="SLERP walk between two generated images">
<div id="info">
  <div>grid seed: <a id="gridLink" href="#"></a></div>
  <div>walk seed: <a id="gifLink" href="#"></a></div>
  <div id="status"></div>
</div>
<script>
(function () {
  "use strict";
  var params = new URLSearchParams(window.location.search);
  var every = params.has("every") ? Math.max(0, parseInt(params.get("every"), 10) || 0) : 10;
  var grid = document.getElementById("grid"), gif = document.getElementById("gif");
  var statusLine = document.getElementById("status"), auto = document.getElementById("auto");
  var timer = null;
  document.getElementById("every").textContent = String(every);
  if (every === 0) { auto.checked = false; document.getElementById("autoLabel").style.display = "none"; }

  function randomSeed() {
    var a = new Uint32Array(1);
    window.crypto.getRandomValues(a);
    return a[0];
  }
  function show(img, link, url, seed) {
    var retries = 0;
    img.onerror = function () {
      if (retries++ < 5) {
        statusLine.textContent = "server busy, retrying...";
        setTimeout(function () { img.src = url + "&_=" + retries; }, 1000);
      } else {
        statusLine.textContent = "could not load " + url;
      }
    };
    img.onload = function () { statusLine.textContent = ""; };
    img.src = url;
    link.href = url;
    link.textContent = String(seed);
  }
  function refresh(seed) {
    show(grid, document.getElementById("gridLink"), "/gan_imgs?n=16&nrow=4&seed=" + seed, seed);
    show(gif, document.getElementById("gifLink"), "/gan_gifs?frames=16&size=256&seed=" + seed, seed);
  }
  function schedule() {
    if (timer) { clearInterval(timer); timer = null; }
    if (auto.checked && every > 0) timer = setInterval(function () { refresh(randomSeed()); }, every * 1000);
  }
  document.getElementById("refresh").addEventListener("click", function () { refresh(randomSeed()); schedule(); });
  auto.addEventListener("change", schedule);
  fetch("/health", { cache: "no-store" }).then(function (r) { return r.json(); }).then(function (h) {
    document.getElementById("model").textContent = h.preset + " (" + h.img_size + " px, nz " + h.nz + ")";
  }).catch(function () {});
  refresh(params.has("seed") ? params.get("seed") : randomSeed());
  schedule();
})();
</script>
</body>
</html>
)HTML";
    return page;
}

}  // namespace streetgan
