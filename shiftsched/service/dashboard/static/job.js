// The job page of a running job, followed live: the job's event stream (the API's
// /solve/jobs/{id}/events, behind the dashboard's session) moves the figures in place as
// the job changes, the charts are redrawn by the server now and then, and at the job's
// end the page is read again to show how it ended. Without EventSource, or when the
// stream fails, the page reloads itself every few seconds, as it does without script.
(function () {
  "use strict";
  var figures = document.getElementById("figures");
  if (!figures || !figures.hasAttribute("data-events")) {
    return; // an ended job: nothing to follow
  }
  var FIRST_EVENT_MS = 10000; // the stream sends the job as it stands at once
  var refreshMs = 1000 * Number(figures.getAttribute("data-refresh-seconds") || 2);
  var chartMs = refreshMs; // the charts are redrawn at most this often
  var phase = document.getElementById("job-phase");
  var search = document.getElementById("search");
  var hint = document.getElementById("follow-hint");
  var whole = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
  var tenths = new Intl.NumberFormat("en-US", {
    minimumFractionDigits: 1, maximumFractionDigits: 1
  });
  var source = null;
  var firstTimer = null;
  var chart = { busy: false, wanted: false };
  var asDrawn = true; // the stream's first event is the job as the page was drawn

  function follow(mode) {
    document.body.setAttribute("data-follow", mode);
  }

  function close() {
    window.clearTimeout(firstTimer);
    if (source) {
      source.close();
      source = null;
    }
  }

  function poll() {
    // What the page does without script: read it again in a few seconds.
    close();
    if (document.body.getAttribute("data-follow") === "polling") {
      return;
    }
    follow("polling");
    window.setTimeout(function () { window.location.reload(); }, refreshMs);
  }

  function show(id, text) {
    var element = document.getElementById(id);
    if (element && element.textContent !== text) {
      element.textContent = text;
    }
  }

  // The gap as the page shows it (job_view.shown_gap): none before a bound above 0.
  function shownGap(objective, bound) {
    if (objective === null || bound === null || (bound <= 0 && objective > 0)) {
      return null;
    }
    return Math.max(0, objective - bound) / Math.max(1, Math.abs(objective));
  }

  function showProgress(progress) {
    var objective = progress.best_objective;
    var bound = progress.best_bound === null ? null : Math.max(0, progress.best_bound);
    var gap = shownGap(objective, bound);
    show("elapsed", tenths.format(progress.elapsed_seconds));
    show("best-objective", objective === null ? "none yet" : whole.format(objective));
    show("best-bound", bound === null ? "unknown" : whole.format(bound));
    show("gap", gap !== null ? (100 * gap).toFixed(1) + "%"
      : (objective === null ? "unknown" : "no bound yet"));
    show("solutions", String(progress.solutions));
    var waiting = document.getElementById("first-roster-wait");
    if (waiting && objective !== null) {
      waiting.parentNode.removeChild(waiting);
    }
  }

  function redrawChart() {
    // The search section as the server draws it; at most one request at a time.
    if (!search || !window.fetch) {
      return;
    }
    chart.wanted = true;
    if (chart.busy) {
      return;
    }
    chart.busy = true;
    chart.wanted = false;
    window.fetch(figures.getAttribute("data-search"), { credentials: "same-origin" })
      .then(function (answer) {
        if (!answer.ok) {
          throw new Error("search section: " + answer.status);
        }
        return answer.text();
      })
      .then(function (html) {
        var open = search.querySelector("details[open]") !== null;
        search.innerHTML = html;
        var details = search.querySelector("details");
        if (details && open) {
          details.open = true;
        }
      })
      .catch(function () { /* the figures still move; the charts catch up next time */ })
      .then(function () {
        window.setTimeout(function () {
          chart.busy = false;
          if (chart.wanted) {
            redrawChart();
          }
        }, chartMs);
      });
  }

  function onProgress(event) {
    var progress = JSON.parse(event.data);
    follow("live");
    if (hint) {
      hint.textContent = "This page follows the job live until it ends.";
    }
    if (phase && phase.getAttribute("data-phase") === "queued" && progress.state === "solving") {
      window.location.reload(); // the page's words for a solving job are the server's
      return;
    }
    showProgress(progress);
    if (asDrawn) {
      asDrawn = false;
      return;
    }
    redrawChart();
    var updated = document.getElementById("last-updated");
    if (updated) { // when this page saw the job change (the stream tells within a second)
      var now = new Date().toISOString();
      updated.setAttribute("datetime", now);
      updated.textContent = now.slice(0, 10) + " " + now.slice(11, 19) + " UTC";
    }
  }

  function start() {
    source = new window.EventSource(figures.getAttribute("data-events"));
    firstTimer = window.setTimeout(poll, FIRST_EVENT_MS);
    source.addEventListener("progress", function (event) {
      window.clearTimeout(firstTimer);
      onProgress(event);
    });
    source.addEventListener("end", function () {
      close();
      follow("ended");
      window.location.reload(); // the ended page: outcome, units charged, result
    });
    source.addEventListener("error", poll);
  }

  if (!window.EventSource) {
    poll();
    return;
  }
  // A hidden page lets its connection go (a browser keeps only a few to one site) and
  // follows the job again once it is shown: the stream starts with the job as it stands.
  document.addEventListener("visibilitychange", function () {
    if (document.hidden && source) {
      close();
      follow("paused");
    } else if (!document.hidden && document.body.getAttribute("data-follow") === "paused") {
      start();
    }
  });
  if (document.hidden) {
    follow("paused");
  } else {
    start();
  }
})();
