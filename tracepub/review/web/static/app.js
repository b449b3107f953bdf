// tracepub review page: buttons, keyboard shortcuts and progress. Plain JavaScript, no build step.
// Every request goes to this server under the page's base path (it holds the token); changes are
// JSON POSTs. Data from the server is put in with textContent; the only HTML inserted is fragments
// the server rendered and escaped.
"use strict";

(function () {
  const base = document.body.dataset.base;
  const page = document.body.dataset.page;

  function toast(text, bad) {
    const t = document.getElementById("toast");
    t.textContent = text;
    t.className = "toast" + (bad ? " bad" : "");
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { t.className = "toast hidden"; }, bad ? 9000 : 4000);
  }

  async function call(path, body) {
    const opts = body === undefined ? {} : {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    };
    const resp = await fetch(base + path, opts);
    let data = {};
    try { data = await resp.json(); } catch (e) { data = { error: "unexpected answer (" + resp.status + ")" }; }
    if (!resp.ok || data.error) { throw new Error(data.error || ("request failed (" + resp.status + ")")); }
    return data;
  }

  function setPending(p) {
    const b = document.getElementById("pending-badge");
    if (!b || !p) return;
    b.textContent = String(p.total);
    b.classList.toggle("hidden", !p.total);
  }

  function showWarnings(data, done) {
    const w = data.warnings || [];
    if (w.length) toast(w.join(" · ") + (data.more_warnings ? " · and " + data.more_warnings + " more" : ""), true);
    else toast(done);
  }

  // -- values ------------------------------------------------------------------------------------
  function stateLabel(s) {
    if (s.now !== s.wanted) return (s.wanted === "kept" ? "keep" : "redact") + " on Apply";
    return s.now === "kept" ? "kept in clear" : "redacted";
  }

  async function decide(action, ids) {
    try {
      const data = await call("api/decide", { action: action, ids: ids });
      for (const [vid, s] of Object.entries(data.states || {})) {
        const el = document.querySelector('article.value[data-vid="' + CSS.escape(vid) + '"]');
        if (!el) continue;
        el.classList.remove("kept", "redacted", "flagged");
        el.classList.add(s.cls);
        el.querySelector("[data-state]").textContent = stateLabel(s);
      }
      setPending(data.pending);
      showWarnings(data, data.appended ? "Recorded: " + action + " (apply to take effect)" : "Nothing to change");
    } catch (e) { toast(e.message, true); }
  }

  function initValues() {
    const list = Array.from(document.querySelectorAll("article.value"));
    let cur = -1;
    function select(n) {
      if (!list.length) return;
      cur = Math.max(0, Math.min(list.length - 1, n));
      list.forEach((el, i) => el.classList.toggle("selected", i === cur));
      list[cur].focus({ preventScroll: true });
      list[cur].scrollIntoView({ block: "nearest" });
    }
    list.forEach((el, i) => {
      el.addEventListener("focus", () => { cur = i; list.forEach((x, j) => x.classList.toggle("selected", j === i)); });
      el.querySelectorAll("button[data-act]").forEach((b) => {
        b.addEventListener("click", (ev) => { ev.stopPropagation(); decide(b.dataset.act, [el.dataset.vid]); });
      });
    });
    const bulk = document.getElementById("bulk");
    if (bulk) {
      bulk.querySelectorAll("button[data-bulk]").forEach((b) => {
        b.addEventListener("click", async () => {
          const n = bulk.dataset.count;
          const what = b.dataset.bulk === "keep" ? "Keep all " + n + " matching values in clear?" : "Redact all " + n + " matching values?";
          if (!window.confirm(what)) return;
          try {
            const data = await call("api/decide", { action: b.dataset.bulk, filter: JSON.parse(bulk.dataset.filter) });
            showWarnings(data, "Recorded " + data.appended + " decision(s)");
            setTimeout(() => window.location.reload(), 600);
          } catch (e) { toast(e.message, true); }
        });
      });
    }
    document.addEventListener("keydown", (ev) => {
      if (ev.target.matches("input, select, textarea") || ev.ctrlKey || ev.metaKey || ev.altKey) return;
      const k = ev.key;
      if (k === "j" || k === "ArrowDown") { select(cur + 1); ev.preventDefault(); }
      else if (k === "k" || k === "ArrowUp") { select(cur - 1); ev.preventDefault(); }
      else if ((k === "c" || k === "r") && cur >= 0) {
        const b = list[cur].querySelector('button[data-act="' + (k === "c" ? "keep" : "redact") + '"]');
        if (b && !b.disabled) decide(b.dataset.act, [list[cur].dataset.vid]);
        if (k === "c" || k === "r") select(cur + 1);
      } else if (k === "/") { const s = document.getElementById("search"); if (s) { s.focus(); ev.preventDefault(); } }
      else if (k === "]") { const a = document.getElementById("next-page"); if (a) a.click(); }
      else if (k === "[") { const a = document.getElementById("prev-page"); if (a) a.click(); }
    });
  }

  // -- sessions ----------------------------------------------------------------------------------
  function initSessionButtons() {
    document.querySelectorAll("button[data-session]").forEach((b) => {
      b.addEventListener("click", async () => {
        const holder = b.closest("[data-sid]");
        const sid = holder.dataset.sid;
        const action = b.dataset.session;
        if (action === "drop" && !window.confirm("Leave session " + sid + " out of dataset/?")) return;
        b.disabled = true;
        try {
          const data = await call("api/session", { action: action, id: sid });
          toast(data.message);
          setTimeout(() => window.location.reload(), 700);
        } catch (e) { toast(e.message, true); b.disabled = false; }
      });
    });
  }

  function initPlaceholders() {
    document.querySelectorAll("button.ph").forEach((b) => {
      b.addEventListener("click", async (ev) => {
        ev.stopPropagation();
        if (b.dataset.shown) { b.textContent = b.dataset.label; delete b.dataset.shown; return; }
        try {
          const v = await call("api/value?id=" + encodeURIComponent(b.dataset.vid));
          b.dataset.label = b.textContent;
          b.dataset.shown = "1";
          b.textContent = v.value + (v.masked ? " (masked)" : "");
          b.title = v.type + " · " + v.placeholder + " · " + stateLabel(v);
        } catch (e) { toast(e.message, true); }
      });
    });
  }

  // -- add ---------------------------------------------------------------------------------------
  function initAdd() {
    const text = document.getElementById("add-text");
    const isRegex = () => document.getElementById("add-regex").checked;
    const out = document.getElementById("preview-result");
    document.getElementById("add-form").addEventListener("submit", (ev) => ev.preventDefault());
    document.getElementById("preview-btn").addEventListener("click", async () => {
      out.textContent = "Looking…";
      try {
        const data = await call("api/preview?" + new URLSearchParams({ text: text.value, regex: isRegex() ? "1" : "0" }));
        out.innerHTML = data.html;  // rendered and escaped by the server
      } catch (e) { out.textContent = e.message; }
    });
    document.getElementById("add-btn").addEventListener("click", async () => {
      try {
        await call("api/add", { text: text.value, regex: isRegex() });
        toast("Added; it is redacted from the next Apply on");
        setTimeout(() => window.location.reload(), 700);
      } catch (e) { toast(e.message, true); }
    });
  }

  // -- apply -------------------------------------------------------------------------------------
  function initApply() {
    const btn = document.getElementById("apply-btn");
    const status = document.getElementById("apply-status");
    const bar = document.getElementById("apply-progress");
    async function poll() {
      let d;
      try { d = await call("api/apply"); } catch (e) { toast(e.message, true); return; }
      status.classList.remove("hidden");
      status.dataset.state = d.state;
      document.getElementById("apply-phase").textContent = d.state === "running" ? d.phase : d.state;
      document.getElementById("apply-time").textContent = d.seconds + " s" + (d.total ? " · " + d.done + " / " + d.total + " file(s)" : "");
      document.getElementById("apply-message").textContent = d.message || "";
      if (d.total) { bar.max = d.total; bar.value = d.done; } else if (d.state === "running") { bar.removeAttribute("value"); }
      if (d.state === "running") { btn.disabled = true; setTimeout(poll, 400); return; }
      btn.disabled = false;
      if (d.state === "done") {
        bar.max = 1; bar.value = 1;
        document.getElementById("apply-result").innerHTML = d.html;  // server-rendered counts
        document.getElementById("now-counts").classList.add("hidden");
        setPending(d.pending);
        document.getElementById("pending-summary").textContent = "Every decision recorded is in effect in dataset/.";
      }
    }
    btn.addEventListener("click", async () => {
      btn.disabled = true;
      try { await call("api/apply", {}); } catch (e) { toast(e.message, true); btn.disabled = false; return; }
      poll();
    });
    if (status.dataset.state === "running") poll();
  }

  // -- approve -----------------------------------------------------------------------------------
  function initApprove() {
    const plan = document.getElementById("plan");
    const field = (id) => document.getElementById(id).value.trim();
    async function load() {
      plan.textContent = "Checking the files…";
      try {
        const d = await call("api/plan?" + new URLSearchParams({ license: field("license"), title: field("title"), reviewer: field("reviewer") }));
        plan.innerHTML = d.html;  // server-rendered plan and card
        if (!field("license")) document.getElementById("license").placeholder = d.license;
        const sign = document.getElementById("sign-btn");
        if (sign) sign.addEventListener("click", signOff);
      } catch (e) { plan.textContent = e.message; }
    }
    async function signOff() {
      if (!field("reviewer")) { toast("Type your name first", true); document.getElementById("reviewer").focus(); return; }
      try {
        const d = await call("api/approve", { reviewer: field("reviewer"), license: field("license"), title: field("title") });
        document.getElementById("sign-result").innerHTML = d.html;  // server-rendered
        document.getElementById("sign-btn").disabled = true;
        toast("Signed");
      } catch (e) { toast(e.message, true); }
    }
    document.getElementById("approve-form").addEventListener("submit", (ev) => { ev.preventDefault(); load(); });
    document.getElementById("plan-btn").addEventListener("click", load);
    load();
  }

  if (page === "values") initValues();
  if (page === "sessions" || page === "session") initSessionButtons();
  if (page === "session") initPlaceholders();
  if (page === "values") initPlaceholders();
  if (page === "add") initAdd();
  if (page === "apply") initApply();
  if (page === "approve") initApprove();
})();
