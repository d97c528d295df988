// The page: POST /api/ask with a case text or a FHIR bundle, then show the
// cards. A case in the URL fragment (#text=… or #bundle=…, &date=…) is
// asked on load, so a link (or a headless browser) shows its answer.
"use strict";

const $ = (id) => document.getElementById(id);
const EXT = "org.executablekg.recommendation";

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("data-")) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const k of kids) {
    if (k == null) continue;
    e.append(typeof k === "string" ? document.createTextNode(k) : k);
  }
  return e;
}

async function loadPacks() {
  try {
    const r = await fetch("api/packs");
    const packs = await r.json();
    for (const p of packs) $("pack").append(el("option", { value: p.id, textContent: p.label }));
  } catch (e) {
    $("status").textContent = "could not list packs: " + e;
  }
}

function mode() {
  return document.querySelector('input[name="mode"]:checked').value;
}

async function ask(ev) {
  if (ev) ev.preventDefault();
  const input = $("input").value;
  const body = { pack: $("pack").value || undefined, date: $("date").value || undefined };
  if (mode() === "bundle") {
    try {
      body.bundle = JSON.parse(input);
    } catch (e) {
      showError("the bundle is not valid JSON: " + e.message);
      return;
    }
  } else {
    body.text = input;
  }
  const frag = new URLSearchParams();
  frag.set(mode(), input);
  if (body.date) frag.set("date", body.date);
  history.replaceState(null, "", "#" + frag.toString());
  $("status").textContent = "asking…";
  $("submit").disabled = true;
  try {
    const r = await fetch("api/ask", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const data = await r.json();
    if (!r.ok) {
      showError((data.field ? data.field + ": " : "") + data.error);
      return;
    }
    render(data);
    $("status").textContent = data.cards.length + " card(s), " + (data.near_misses || []).length + " near miss(es)";
  } catch (e) {
    showError(String(e));
  } finally {
    $("submit").disabled = false;
  }
}

function showError(msg) {
  $("status").textContent = "";
  $("status").append(el("span", { class: "error", textContent: msg }));
}

// Spans are UTF-8 byte offsets; slice the encoded text, not the JS string.
function highlight(text, marks) {
  const bytes = new TextEncoder().encode(text);
  const dec = new TextDecoder();
  const cuts = new Set([0, bytes.length]);
  for (const m of marks) {
    if (m.start >= 0 && m.end <= bytes.length && m.end > m.start) {
      cuts.add(m.start);
      cuts.add(m.end);
    }
  }
  const pts = [...cuts].sort((a, b) => a - b);
  const out = [];
  for (let i = 0; i + 1 < pts.length; i++) {
    const a = pts[i], b = pts[i + 1];
    const cards = marks.filter((m) => m.start <= a && m.end >= b).map((m) => m.card);
    const s = dec.decode(bytes.subarray(a, b));
    out.push(cards.length ? el("mark", { "data-cards": [...new Set(cards)].join(" "), textContent: s }) : document.createTextNode(s));
  }
  return out;
}

function badge(cls, text) {
  return el("span", { class: "badge " + cls, textContent: text });
}

function cardView(c, i) {
  const x = (c.extension || {})[EXT] || {};
  const card = el("article", { class: "card " + c.indicator, "data-card": String(i), tabIndex: 0 });
  card.append(
    el("div", { class: "card-head" },
      badge("ind-" + c.indicator, c.indicator),
      badge("class", "Class " + x.class),
      x.level ? badge("level", "Level " + x.level) : null,
      x.intent ? badge("intent", x.intent) : null,
      el("span", { class: "summary", textContent: c.summary })));
  const fired = el("ul", { class: "fired" });
  for (const f of x.fired_by || []) {
    const li = el("li", {}, el("span", { class: "cond", textContent: f.condition }), ": ");
    if (f.evidence) li.append(f.spans && f.spans.length ? el("mark", { textContent: f.evidence }) : el("q", { textContent: f.evidence }));
    const bits = [];
    if (f.value != null) bits.push(f.value + (f.unit ? " " + f.unit : ""));
    if (f.date) bits.push(f.date);
    if (f.via) bits.push(f.via);
    if (bits.length) li.append(" — " + bits.join(", "));
    if (f.resource) li.append(" ", el("code", { textContent: f.resource }));
    fired.append(li);
  }
  card.append(el("div", { class: "label", textContent: "Fired by" }), fired);
  if (x.orders && x.orders.length) {
    card.append(el("div", { class: "label", textContent: "Draft orders concerned" }), el("p", {}, ...x.orders.map((o) => el("code", { textContent: o + " " }))));
  }
  if (x.missing && x.missing.length) {
    const ul = el("ul", { class: "missing" });
    for (const m of x.missing) ul.append(el("li", { textContent: m }));
    card.append(el("div", { class: "label", textContent: "Not known (would change the advice)" }), ul);
  }
  if (c.suggestions && c.suggestions.length) {
    card.append(el("div", { class: "label", textContent: "Suggestions" }), el("ul", {}, ...c.suggestions.map((s) => el("li", { textContent: s.label }))));
  }
  const src = el("p", { class: "source" }, "Source: ");
  src.append(c.source.url ? el("a", { href: c.source.url, textContent: c.source.label, target: "_blank", rel: "noopener" }) : c.source.label);
  if (c.source.topic) src.append(" · " + c.source.topic.display);
  src.append(" · ", el("code", { textContent: x.row_id }));
  card.append(src);
  card.addEventListener("click", () => focusCard(i));
  return card;
}

function focusCard(i) {
  for (const m of document.querySelectorAll("#case mark")) {
    m.classList.toggle("active", m.dataset.cards.split(" ").includes(String(i)));
  }
  for (const c of document.querySelectorAll(".card")) c.classList.toggle("focused", c.dataset.card === String(i));
}

function render(data) {
  $("results").hidden = false;
  const marks = [];
  data.cards.forEach((c, i) => {
    const x = (c.extension || {})[EXT] || {};
    for (const f of x.fired_by || []) for (const s of f.spans || []) marks.push({ start: s.start, end: s.end, card: i });
  });
  $("case-wrap").hidden = !data.text;
  $("case").replaceChildren(...(data.text ? highlight(data.text, marks) : []));
  renderModel(data);
  $("cards-title").textContent = "Cards (" + data.cards.length + ")";
  $("cards").replaceChildren(...data.cards.map(cardView));
  if (!data.cards.length) $("cards").append(el("p", { class: "hint", textContent: "No recommendation row applies to this case." }));
  const held = data.withheld || [];
  $("withheld-wrap").hidden = !held.length;
  $("withheld-title").textContent = "Withheld (" + held.length + "): rows that fired but give what the record says the patient does not tolerate";
  $("withheld").replaceChildren(...held.map((w) =>
    el("li", {},
      badge("class", "Class " + w.class), " ", w.reason, " ",
      el("span", { class: "source" }, w.source.url ? el("a", { href: w.source.url, textContent: w.source.label, target: "_blank", rel: "noopener" }) : w.source.label))));
  const near = data.near_misses || [];
  $("near-wrap").hidden = !near.length;
  $("near-title").textContent = "Near misses (" + near.length + "): rows that would apply if…";
  $("near").replaceChildren(...near.map((n) =>
    el("li", {},
      badge("class", "Class " + n.class), " ", n.text, " ",
      el("span", { class: "would", textContent: "would apply if: " + n.missing.join("; ") }), " ",
      el("span", { class: "source" }, n.source.url ? el("a", { href: n.source.url, textContent: n.source.label, target: "_blank", rel: "noopener" }) : n.source.label))));
}

// The patient model: each fact read (with how sure, whose, from where),
// then each reading dropped with its reason.
function renderModel(data) {
  const facts = data.facts || [], dropped = data.dropped || [];
  $("model-wrap").hidden = !facts.length && !dropped.length;
  $("model-title").textContent = "Patient model: " + facts.length + " fact(s) read, " + dropped.length + " reading(s) dropped";
  $("facts").tBodies[0].replaceChildren(...facts.map((f) => {
    const status = [f.status, f.certainty, f.experiencer && f.experiencer !== "patient" ? f.experiencer : ""].filter(Boolean).join(", ");
    const from = f.resource ? el("code", { textContent: f.resource }) : (f.via ? "derived: " + f.via : (f.spans && f.spans.length ? "text" : ""));
    return el("tr", {},
      el("td", { textContent: f.text || "" }), el("td", { textContent: f.concept || "" }), el("td", { textContent: f.kind || "" }),
      el("td", { textContent: status }), el("td", { textContent: f.value != null ? f.value + (f.unit ? " " + f.unit : "") : "" }),
      el("td", { textContent: f.date || "" }), el("td", {}, from));
  }));
  $("dropped").replaceChildren(...dropped.map((d) =>
    el("li", {}, el("span", { class: "dropped", textContent: "dropped: " }), d.resource ? el("code", { textContent: d.resource }) : null, " ", d.text || "", " — ", d.reason)));
}

function fromFragment() {
  const p = new URLSearchParams(location.hash.slice(1));
  const date = p.get("date");
  if (date) $("date").value = date;
  for (const m of ["text", "bundle"]) {
    if (p.has(m)) {
      document.querySelector('input[name="mode"][value="' + m + '"]').checked = true;
      $("input").value = p.get(m);
      return true;
    }
  }
  return false;
}

document.addEventListener("DOMContentLoaded", async () => {
  $("ask").addEventListener("submit", ask);
  await loadPacks();
  if (fromFragment()) ask();
});
