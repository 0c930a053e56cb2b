"""The replay viewer: one traced game (``cardlab trace``, ``cardlab play --save``, a
report's sampled games) as one self-contained HTML page: inline script and styles, the
trace embedded as JSON, nothing fetched from the network.

The page draws every zone of the trace's ``state`` after the current event: the shared
zones on the table, then a panel per seat with its own zones, cards as faces
(``analysis/card_faces.py``: suits in colour).  Step back / forward / play with the buttons
or the arrow keys (Space plays, Home/End jump); the event is described in words
(``analysis/play_words.describe_event``, the trace's own event names and fields).  A
selector switches between "everything" and "what seat s sees": a zone hidden from the seat
by the schema's visibility (``analysis/trace_zones.py``) shows its count only.  The address
may name a moment: ``replay.html#e=12&seat=1`` opens event 12 (1-based) in seat 1's view.

Elements carry data- attributes so a test can read the page back: ``#pos[data-step]`` (the
event shown, 0-based), ``.zone[data-zone][data-seat][data-vis]`` (a zone block;
``data-hidden=n`` when hidden, else its cards as ``.card[data-card]``), ``#view[data-seat]``
(the view: ``all`` or a seat), ``#event`` (the event's words; in a seat's view the cards
it did not see move are ``?``, as in ``cardlab play``).

**The strip** (``render_replay(strip=...)``; a report's replays have one, from
``analysis/replay_moments.py``): each seat's progress over the events as a small inline SVG
above the table, a line per seat, a marker at the current event that moves as you step,
the telling moments marked (their links under it jump there), and a click on the strip
jumps to that event.  Read back through ``#strip[data-events][data-seats]``,
``.strip-line[data-seat]``, ``#strip-marker[data-step]``, ``.strip-moment[data-step]`` and
``.strip-val[data-seat]`` (the seat's progress at the current event).  A trace without a
series (``cardlab replay`` of a file) has no strip.
"""
from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from cardlab.analysis.card_faces import css as faces_css
from cardlab.analysis.card_faces import faces
from cardlab.analysis.play_words import describe_event
from cardlab.analysis.trace_zones import cards_in, seat_view, zone_info
from cardlab.analysis.visibility import mask_event, seen_lists, unique_deck, visible_lists
from cardlab.sim.errors import InputError


# ------------------------------------------------------------------ reading a trace
def read_trace(path: str | Path) -> list[dict[str, Any]]:
    """The lines of a trace file, checked: a header first (with a known game), events with
    a ``state``, a result last.  InputError (one line) for anything else."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"bad trace {str(path)!r}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"bad trace {str(path)!r}: it is a folder, not a trace file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"bad trace {str(path)!r}: cannot read it ({getattr(e, 'strerror', None) or e})") from None
    lines = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"bad trace {str(path)!r}: line {n} is not JSON ({e.msg})") from None
        if not isinstance(obj, dict) or "type" not in obj:
            raise InputError(f"bad trace {str(path)!r}: line {n} is not a trace line (no \"type\")")
        lines.append(obj)
    check_trace(lines, str(path))
    return lines


def check_trace(lines: list[dict[str, Any]], where: str = "trace") -> None:
    """InputError unless ``lines`` are header, events with a state, result."""
    from cardlab.sim.registry import game_ids

    if not lines or lines[0].get("type") != "header":
        raise InputError(f"bad trace {where!r}: the first line is not a header (write one with `cardlab trace`)")
    if lines[-1].get("type") != "result":
        raise InputError(f"bad trace {where!r}: the last line is not a result (the game is cut short?)")
    gid = lines[0].get("game")
    if gid not in game_ids():
        raise InputError(f"bad trace {where!r}: unknown game {gid!r}; allowed: {', '.join(game_ids())}")
    events = lines[1:-1]
    if not events:
        raise InputError(f"bad trace {where!r}: no events")
    for i, ev in enumerate(events):
        if ev.get("type") != "event" or not isinstance(ev.get("state"), dict):
            raise InputError(f"bad trace {where!r}: line {i + 2} is not an event with a state")


# ------------------------------------------------------------------ the page's data
def result_text(result: dict[str, Any], labels: list[str]) -> str:
    w = result.get("winners") or []
    who = ("no winner" if not w else
           " and ".join(f"seat {s} ({labels[s]})" for s in w) + (" wins" if len(w) == 1 else " share the win"))
    cap = ", stopped by the cap" if result.get("unfinished") else ""
    return f"Result: {who}{cap}; length {result.get('length')}; scores {result.get('scores')}."


def event_texts(game, events: list[dict[str, Any]], players: int, labels: list[str],
                info: dict[str, dict[str, Any]], codes: set[str]) -> list[list[str]]:
    """Every event in words: as everyone sees it, then as each seat sees it (the cards the
    seat did not see shown as ``?``, exactly ``cardlab play``'s ``seen_cards`` rule: the
    cards of every visible list an event changed, and with a ``unique_deck`` every card in
    view; each view's lists are read once, so a 4,000-event game stays quick)."""
    out = [[describe_event(ev, -1, labels)] for ev in events]
    unique = bool(events) and unique_deck(game, events[0]["state"])
    for s in range(players):
        before: dict = {}
        for k, ev in enumerate(events):
            after = visible_lists(seat_view(game, ev["state"], players, s, info))
            out[k].append(describe_event(mask_event(ev, codes, seen_lists(before, after, unique)), s, labels))
            before = after
    return out


def viewer_data(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """What the page's script draws: the header's facts, every event with its words and
    state, each zone's visibility, the card faces and the result in words."""
    from cardlab.sim.registry import get_game

    header, events, result = lines[0], lines[1:-1], lines[-1]
    game = get_game(header["game"])
    players = int(header["players"])
    labels = [str(x) for x in header.get("strategies") or []] + [""] * players
    labels = labels[:players]
    info: dict[str, Any] = {}
    codes: set[str] = set()
    for ev in events:
        for zone, i in zone_info(game, ev["state"], players).items():
            info.setdefault(zone, dict(i, label=game.zone_label(zone)))  # its title (Game.zone_labels)
        codes.update(cards_in(ev["state"]))
    texts = event_texts(game, events, players, labels, info, codes)
    evs = [{"step": ev.get("step", k), "turn": ev.get("turn"), "player": ev.get("player"),
            "action": ev.get("action"), "texts": texts[k], "state": ev["state"]} for k, ev in enumerate(events)]
    return {"game": game.id, "title": game.title, "players": players, "labels": labels,
            "seed": header.get("seed"), "game_index": header.get("game_index"),
            "zones": info, "faces": faces(game, sorted(codes)), "events": evs,
            "result": result, "result_text": result_text(result, labels)}


# ------------------------------------------------------------------ the page
STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:1rem auto;max-width:72rem;
padding:0 1rem;color:#222;background:#fafafa}
h1{font-size:1.4rem;margin:.2rem 0} .muted{color:#666;font-size:.9rem}
#bar{position:sticky;top:0;background:#fafafa;padding:.5rem 0;border-bottom:1px solid #ddd;z-index:2}
#bar button{font-size:1rem;padding:.25rem .7rem;margin-right:.2rem;cursor:pointer}
#bar input[type=range]{width:18rem;vertical-align:middle}
#event{font-size:1.05rem;margin:.5rem 0;padding:.5rem .8rem;background:#f4f7fb;border-left:4px solid #1f77b4}
#result{font-weight:600;margin:.4rem 0;display:none} #result.shown{display:block}
.zones{display:flex;flex-wrap:wrap;gap:.6rem}
.seat{background:#fff;border:1px solid #ddd;border-radius:6px;padding:.5rem .7rem;margin:.6rem 0}
.seat.actor{border-color:#1f77b4;box-shadow:0 0 0 2px #1f77b455}
.seat h2,.table h2{font-size:1rem;margin:.1rem 0 .4rem}
.table{background:#eef5ee;border:1px solid #cdc;border-radius:6px;padding:.5rem .7rem}
.zone{margin:.2rem 0} .zone>b{display:inline-block;min-width:6.5rem;font-size:.85rem;color:#444}
.card{display:inline-block;min-width:1.6rem;padding:.1rem .3rem;margin:.1rem;border:1px solid #999;
border-radius:4px;background:#fff;font-weight:600;text-align:center;font-size:.95rem}
.hidden{display:inline-block;padding:.1rem .4rem;border:1px dashed #999;border-radius:4px;color:#666;
background:repeating-linear-gradient(45deg,#f2f2f2,#f2f2f2 4px,#e6e6e6 4px,#e6e6e6 8px)}
.num{font-family:ui-monospace,monospace} .sub{display:inline-block;border-left:2px solid #ddd;
padding-left:.3rem;margin:.1rem .4rem .1rem 0} .sub>i{color:#777;font-size:.8rem;margin-right:.2rem}
#strip-box{margin:.4rem 0 .6rem} #strip{display:block;width:100%;height:80px;cursor:pointer;background:#fff;
border:1px solid #ddd;border-radius:4px} .strip-key{margin-right:.8rem;white-space:nowrap}
.strip-key i{display:inline-block;width:.9rem;height:.25rem;vertical-align:middle;margin-right:.25rem}
.strip-val{font-family:ui-monospace,monospace;margin-left:.2rem} #moments{margin:.2rem 0;font-size:.9rem}
.empty{color:#aaa} .group .group{display:inline-block;border:1px solid #ccc;border-radius:5px;padding:0 .15rem;margin:.1rem .3rem .1rem 0;background:#fcfcfc}
"""

SCRIPT = r"""
(function () {
  var D = JSON.parse(document.getElementById('trace-data').textContent);
  var N = D.events.length, pos = 0, view = INITIAL_VIEW, timer = null;
  var $ = function (id) { return document.getElementById(id); };
  function el(tag, cls, text) {
    var e = document.createElement(tag); if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text; return e;
  }
  function countCards(v) {
    if (typeof v === 'string') return 1;
    if (Array.isArray(v)) return v.reduce(function (a, x) { return a + countCards(x); }, 0);
    if (v && typeof v === 'object') return Object.keys(v).reduce(function (a, k) { return a + countCards(v[k]); }, 0);
    return 0;
  }
  function draw(v) {  // a zone's value: cards, numbers, lists, labelled parts
    if (typeof v === 'string') {
      var f = D.faces[v] || {t: v, c: 'plain'};
      var c = el('span', 'card ' + f.c, f.t); c.setAttribute('data-card', v); c.title = v; return c;
    }
    if (Array.isArray(v)) {
      var g = el('span', 'group');
      if (!v.length) g.appendChild(el('span', 'empty', '\u2014'));
      v.forEach(function (x) { g.appendChild(draw(x)); });
      return g;
    }
    if (v && typeof v === 'object') {
      var o = el('span', 'group');
      Object.keys(v).forEach(function (k) {
        var s = el('span', 'sub'); s.appendChild(el('i', null, k)); s.appendChild(draw(v[k])); o.appendChild(s);
      });
      return o;
    }
    var n = el('span', 'num', v === null ? '\u2014' : String(v)); n.setAttribute('data-value', JSON.stringify(v));
    return n;
  }
  function sees(vis, owner) {
    if (view === 'all' || vis === 'public') return true;
    return vis === 'owner' && owner === view;
  }
  function zone(name, value, owner) {
    var z = D.zones[name], box = el('div', 'zone');
    box.setAttribute('data-zone', name);
    box.setAttribute('data-seat', owner === null ? '' : String(owner));
    box.setAttribute('data-vis', z.visible);
    box.appendChild(el('b', null, z.label || name));
    if (sees(z.visible, owner)) box.appendChild(draw(value));
    else {
      var n = countCards(value);
      var h = el('span', 'hidden', n + (n === 1 ? ' card' : ' cards') + ' (hidden)');
      box.setAttribute('data-hidden', String(n)); box.appendChild(h);
    }
    return box;
  }
  var strip = $('strip');
  var SW = strip ? parseFloat(strip.getAttribute('data-width')) : 0;
  var SP = strip ? parseFloat(strip.getAttribute('data-pad')) : 0;
  function stripX(i) { return SP + (N > 1 ? i * (SW - 2 * SP) / (N - 1) : (SW - 2 * SP) / 2); }
  function renderStrip() {
    if (!strip) return;
    var m = $('strip-marker'), x = String(stripX(pos));
    m.setAttribute('x1', x); m.setAttribute('x2', x); m.setAttribute('data-step', String(pos));
    D.strip.values.forEach(function (v, s) {
      var b = document.querySelector('.strip-val[data-seat="' + s + '"]');
      if (b) b.textContent = String(v[pos]);
    });
  }
  function render() {
    var ev = D.events[pos], st = ev.state;
    renderStrip();
    $('pos').setAttribute('data-step', String(pos));
    $('pos').textContent = 'event ' + (pos + 1) + ' of ' + N + ' (step ' + ev.step + ', turn ' + ev.turn + ')';
    $('slider').value = String(pos);
    $('event').textContent = ev.texts[view === 'all' ? 0 : view + 1];
    $('result').className = pos === N - 1 ? 'shown' : '';
    var table = $('table'), seats = $('seats');
    table.innerHTML = ''; seats.innerHTML = '';
    table.appendChild(el('h2', null, 'Table'));
    Object.keys(st).forEach(function (k) { if (!D.zones[k].per_seat) table.appendChild(zone(k, st[k], null)); });
    for (var s = 0; s < D.players; s++) {
      var p = el('div', 'seat' + (ev.player === s ? ' actor' : ''));
      p.setAttribute('data-seat', String(s));
      p.appendChild(el('h2', null, 'Seat ' + s + ' (' + D.labels[s] + ')' + (ev.player === s ? ' \u2014 acted' : '')
                       + (view === s ? ' \u2014 this view' : '')));
      Object.keys(st).forEach(function (k) { if (D.zones[k].per_seat) p.appendChild(zone(k, st[k][s], s)); });
      seats.appendChild(p);
    }
    $('view').setAttribute('data-seat', view === 'all' ? 'all' : String(view));
  }
  function go(i) { pos = Math.max(0, Math.min(N - 1, i)); render(); }
  function stop() { if (timer) { clearInterval(timer); timer = null; } $('play').textContent = 'play \u25b6'; }
  function play() {
    if (timer) { stop(); return; }
    if (pos === N - 1) go(0);
    $('play').textContent = 'pause \u2016';
    timer = setInterval(function () { if (pos >= N - 1) stop(); else go(pos + 1); }, 600);
  }
  $('first').onclick = function () { stop(); go(0); };
  $('back').onclick = function () { stop(); go(pos - 1); };
  $('fwd').onclick = function () { stop(); go(pos + 1); };
  $('last').onclick = function () { stop(); go(N - 1); };
  $('play').onclick = play;
  $('slider').max = String(N - 1);
  $('slider').oninput = function () { stop(); go(parseInt(this.value, 10)); };
  $('view').onchange = function () { view = this.value === 'all' ? 'all' : parseInt(this.value, 10); render(); };
  document.addEventListener('keydown', function (e) {
    if (e.target && e.target.tagName === 'SELECT') return;
    if (e.key === 'ArrowRight') { stop(); go(pos + 1); e.preventDefault(); }
    else if (e.key === 'ArrowLeft') { stop(); go(pos - 1); e.preventDefault(); }
    else if (e.key === 'Home') { stop(); go(0); e.preventDefault(); }
    else if (e.key === 'End') { stop(); go(N - 1); e.preventDefault(); }
    else if (e.key === ' ') { play(); e.preventDefault(); }
  });
  if (strip) strip.addEventListener('click', function (e) {  // jump to the event under the click
    var r = strip.getBoundingClientRect();
    if (!r.width) return;
    var vx = (e.clientX - r.left) / r.width * SW;
    stop(); go(Math.round((vx - SP) / (SW - 2 * SP) * (N - 1)));
  });
  Array.prototype.forEach.call(document.querySelectorAll('.moment-link'), function (a) {
    a.addEventListener('click', function () { stop(); go(parseInt(a.getAttribute('data-step'), 10)); });
  });
  // a link may open a moment: replay.html#e=12&seat=1 (event 12, 1-based; seat 1's view)
  function fromHash() {
    var me = /(?:^|[#&])e=(\d+)/.exec(location.hash), ms = /(?:^|[#&])seat=(\d+)/.exec(location.hash);
    if (me) pos = Math.max(0, Math.min(N - 1, parseInt(me[1], 10) - 1));
    if (ms && parseInt(ms[1], 10) < D.players) view = parseInt(ms[1], 10);
    $('view').value = view === 'all' ? 'all' : String(view);
  }
  window.addEventListener('hashchange', function () { stop(); fromHash(); render(); });
  fromHash();
  render();
})();
"""


SEAT_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")
STRIP_W, STRIP_H, STRIP_PAD = 1000, 80, 6   # the strip's viewBox (stretched to the page's width)


def check_strip(strip: dict[str, Any], players: int, events: int) -> None:
    """InputError unless ``strip`` has a series per seat with a number per event."""
    vals = strip.get("values") if isinstance(strip, dict) else None
    if not (isinstance(vals, list) and len(vals) == players
            and all(isinstance(v, list) and len(v) == events for v in vals)):
        raise InputError(f"bad strip: a progress series per seat ({players}) with a value per event "
                         f"({events}) is needed")
    for m in strip.get("moments") or []:
        if not (isinstance(m.get("e"), int) and 0 <= m["e"] < events):
            raise InputError(f"bad strip: moment {m.get('e')!r} is not an event index (0 to {events - 1})")


def strip_html(strip: dict[str, Any], labels: list[str]) -> str:
    """The strip above the table: a line per seat of its progress over the events (a step
    line: it moves where the value does; seats nudged apart a pixel so ties stay visible),
    the moments dashed, the marker at event 0 (the script moves it), a legend with each
    seat's value at the current event and the moments as links."""
    e = html.escape
    vals = strip["values"]
    P, N = len(vals), len(vals[0])
    lo = min(min(v) for v in vals)
    hi = max(max(v) for v in vals)
    W, H, pad = STRIP_W, STRIP_H, STRIP_PAD

    def x(k: int) -> str:
        return f"{pad + (k * (W - 2 * pad) / (N - 1) if N > 1 else (W - 2 * pad) / 2):.1f}"

    def y(v: float, s: int) -> str:
        mid = H / 2 if hi == lo else H - pad - (v - lo) * (H - 2 * pad) / (hi - lo)
        return f"{mid + (s - (P - 1) / 2) * 1.2:.1f}"

    def colour(s: int) -> str:
        return SEAT_COLOURS[s % len(SEAT_COLOURS)]

    lines = []
    for s, v in enumerate(vals):
        pts = [f"{x(0)},{y(v[0], s)}"]
        for k in range(1, N):
            if v[k] != v[k - 1]:
                pts += [f"{x(k)},{y(v[k - 1], s)}", f"{x(k)},{y(v[k], s)}"]
        pts.append(f"{x(N - 1)},{y(v[-1], s)}")
        lines.append(f"<polyline class=\"strip-line\" data-seat=\"{s}\" fill=\"none\" stroke-width=\"2\" "
                     f"vector-effect=\"non-scaling-stroke\" stroke=\"{colour(s)}\" points=\"{' '.join(pts)}\"/>")
    moments = strip.get("moments") or []
    marks = "".join(f"<line class=\"strip-moment\" data-step=\"{m['e']}\" x1=\"{x(m['e'])}\" x2=\"{x(m['e'])}\" "
                    f"y1=\"0\" y2=\"{H}\" stroke=\"#444\" stroke-dasharray=\"4 3\" stroke-width=\"1.5\" "
                    f"vector-effect=\"non-scaling-stroke\"><title>{e(m.get('title') or 'the moment')}: "
                    f"{e(m.get('why') or '')}</title></line>" for m in moments)
    marker = (f"<line id=\"strip-marker\" data-step=\"0\" x1=\"{x(0)}\" x2=\"{x(0)}\" y1=\"0\" y2=\"{H}\" "
              "stroke=\"#1f77b4\" stroke-opacity=\".45\" stroke-width=\"3\" vector-effect=\"non-scaling-stroke\"/>")
    keys = "".join(f"<span class=\"strip-key\" data-seat=\"{s}\"><i style=\"background:{colour(s)}\"></i>seat {s}"
                   + (f" ({e(labels[s])})" if s < len(labels) and labels[s] else "")
                   + f"<b class=\"strip-val\" data-seat=\"{s}\">{vals[s][0]}</b></span>" for s in range(P))
    what = e(strip.get("what") or "progress")
    svg = (f"<svg id=\"strip\" data-events=\"{N}\" data-seats=\"{P}\" data-width=\"{W}\" data-pad=\"{pad}\" "
           f"viewBox=\"0 0 {W} {H}\" preserveAspectRatio=\"none\" role=\"img\" "
           f"aria-label=\"each seat's progress ({what}) over the {N} events; click to jump\">"
           f"<title>Each seat's progress ({what}), {lo} to {hi}: click to jump to an event</title>"
           + "".join(lines) + marks + marker + "</svg>")
    links = "".join(f"<br><a class=\"moment-link\" href=\"#e={m['e'] + 1}\" data-step=\"{m['e']}\">"
                    f"event {m['e'] + 1}</a>"
                    + (f" ({e(m['title'].lower())})" if m.get("title") else "") + f": {e(m.get('why') or '')}"
                    for m in moments)
    return (f"<div id=\"strip-box\"><div class=\"muted\"><b>Progress</b> ({what}; from {lo} to {hi}"
            + ("; dashed: the moment" + ("s" if len(moments) > 1 else "") if moments else "")
            + f"; click to jump): {keys}</div>{svg}"
            + (f"<p id=\"moments\" class=\"muted\">Marked:{links}</p>" if moments else "") + "</div>")


def _script_json(obj: Any) -> str:
    """JSON safe inside a <script> element (no "</script>" can end it early)."""
    return json.dumps(obj, separators=(",", ":")).replace("</", "<\\/").replace("<!--", "<\\!--")


def render_replay(lines: list[dict[str, Any]], title: str | None = None, why: str | None = None,
                  seat: int | None = None, back: str | None = None, strip: dict[str, Any] | None = None) -> str:
    """The viewer page of a checked trace (``check_trace``); ``why`` says what the game
    illustrates, ``seat`` opens it in that seat's view, ``back`` links a report, ``strip``
    (``{"what", "values": [seat][event], "moments": [{"e", "title", "why"}]}``, e.g.
    ``replay_moments.Story.strip``) draws each seat's progress above the table."""
    e = html.escape
    d = viewer_data(lines)
    if seat is not None and not (0 <= seat < d["players"]):
        raise InputError(f"bad --seat {seat}: allowed 0 to {d['players'] - 1}")
    if strip is not None:
        check_strip(strip, d["players"], len(d["events"]))
    d["strip"] = strip
    title = title or f"cardlab replay: {d['game']}, seed {d['seed']}, game {d['game_index']}"
    options = "".join(f"<option value=\"{s}\">what seat {s} sees</option>" for s in range(d["players"]))
    head = (f"<p class=\"muted\">{e(d['title'])}: {d['players']} players "
            f"({e(', '.join(d['labels']))}), seed {d['seed']}, game index {d['game_index']}, "
            f"{len(d['events'])} events. Keys: \u2190 \u2192 step, Space plays, Home / End.</p>")
    script = SCRIPT.replace("INITIAL_VIEW", "'all'" if seat is None else str(int(seat)))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{e(title)}</title><style>{STYLE}{faces_css()}</style></head><body>"
            + (f"<p class=\"muted\"><a href=\"{e(back, quote=True)}\">\u2190 the report</a></p>" if back else "")
            + f"<h1>{e(title)}</h1>"
            + (f"<p id=\"why\">{e(why)}</p>" if why else "") + head
            + "<div id=\"bar\"><button id=\"first\" title=\"first event (Home)\">\u00ab first</button>"
            "<button id=\"back\" title=\"back (\u2190)\">\u25c0 back</button>"
            "<button id=\"play\" title=\"play / pause (Space)\">play \u25b6</button>"
            "<button id=\"fwd\" title=\"forward (\u2192)\">forward \u25b6</button>"
            "<button id=\"last\" title=\"last event (End)\">last \u00bb</button> "
            "<input id=\"slider\" type=\"range\" min=\"0\" value=\"0\" aria-label=\"event\"> "
            "<span id=\"pos\" data-step=\"0\"></span> &nbsp; "
            f"<select id=\"view\" data-seat=\"all\" aria-label=\"view\"><option value=\"all\">everything</option>"
            f"{options}</select></div>"
            + (strip_html(strip, d["labels"]) if strip is not None else "")
            + "<p id=\"event\"></p>"
            f"<p id=\"result\">{e(d['result_text'])}</p>"
            "<div id=\"table\" class=\"table\"></div><div id=\"seats\"></div>"
            f"<script type=\"application/json\" id=\"trace-data\">{_script_json(d)}</script>"
            f"<script>{script}</script></body></html>\n")


def write_replay(lines: list[dict[str, Any]], out: str | Path, **kw) -> Path:
    """Write the viewer page of ``lines`` to ``out`` (``kw``: ``render_replay``'s title, why,
    seat, back, strip); InputError when it cannot be written."""
    p = Path(out)
    page = render_replay(lines, **kw)
    try:
        if p.parent and not p.parent.exists():
            p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(page, encoding="utf-8")
    except OSError as ex:
        raise InputError(f"bad --out {str(out)!r}: cannot write it ({ex.strerror})") from None
    return p
