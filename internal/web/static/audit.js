// claimtrace audit view: claim selection, j/k navigation, audit timing, the
// reviewer token and reviews.
//
// The token lives in sessionStorage only (gone with the tab); the
// reviewer's name, no secret, is remembered in localStorage.
//
// Served as a file: the Content-Security-Policy allows no inline script.
// Nothing here turns data into markup: claim panels come from the server
// already escaped and are parsed with DOMParser; every other text is set
// with textContent.
(function () {
  'use strict';

  const root = document.getElementById('audit');
  if (!root) {
    return;
  }
  const run = root.dataset.run;
  const task = root.dataset.task;
  const writable = root.dataset.writable === 'true';
  const base = '/runs/' + encodeURIComponent(run) + '/reports/' + encodeURIComponent(task);
  const api = '/api' + base;
  const panel = document.getElementById('panel');
  // A claim may be highlighted in several pieces (it crosses emphasis or a
  // link); its first piece on the page carries the id claim-ID.
  const claims = Array.from(document.querySelectorAll('#report [id^="claim-"][data-claim]'));
  const total = Number(root.dataset.total || claims.length);
  const narrow = window.matchMedia('(max-width: 900px)');
  const TOKEN_KEY = 'claimtrace-token';
  const REVIEWER_KEY = 'claimtrace-reviewer';
  const ANONYMOUS = 'anonymous'; // the server's name for a review without one
  const IDLE_MS = 120000; // no input for this long: the reader is away
  const FLUSH_MS = 15000;
  const MAX_STEP_S = 5; // a stalled timer (sleep, throttling) counts at most this

  const session = newSession();
  const spent = new Map(); // claim id → seconds this session
  const dirty = new Set(); // claims whose seconds are not saved yet
  let current = null;
  let last = performance.now();
  let wasActive = false;
  let lastInput = Date.now();

  function newSession() {
    if (window.crypto && typeof crypto.randomUUID === 'function') {
      return crypto.randomUUID();
    }
    const b = new Uint8Array(16);
    crypto.getRandomValues(b);
    return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  }

  function token() {
    try {
      return sessionStorage.getItem(TOKEN_KEY) || '';
    } catch (e) {
      return '';
    }
  }

  function savedReviewer() {
    try {
      return localStorage.getItem(REVIEWER_KEY) || '';
    } catch (e) {
      return '';
    }
  }

  function rememberReviewer(name) {
    try {
      if (name) {
        localStorage.setItem(REVIEWER_KEY, name);
      } else {
        localStorage.removeItem(REVIEWER_KEY);
      }
    } catch (e) {
      // storage refused (private mode): the name is asked again next time
    }
  }

  function active() {
    return document.visibilityState === 'visible' && document.hasFocus() && Date.now() - lastInput < IDLE_MS;
  }

  // tick credits the time since the last tick to the selected claim when the
  // reader was active during it, then notes whether they are active now.
  function tick() {
    const now = performance.now();
    const dt = Math.min((now - last) / 1000, MAX_STEP_S);
    last = now;
    if (current && wasActive && dt > 0) {
      spent.set(current, (spent.get(current) || 0) + dt);
      dirty.add(current);
    }
    wasActive = active();
    showTimer();
  }

  function fmt(sec) {
    const s = Math.round(sec);
    return s < 60 ? s + ' s' : Math.floor(s / 60) + ' min ' + String(s % 60).padStart(2, '0') + ' s';
  }

  function showTimer() {
    const el = document.getElementById('claim-timer');
    if (el && current) {
      el.textContent = fmt(spent.get(current) || 0);
    }
  }

  function setText(id, text) {
    const el = document.getElementById(id);
    if (el) {
      el.textContent = text;
    }
  }

  function showEffort(e) {
    if (!e || e.minutes_per_claim == null) {
      return;
    }
    setText('aeff', 'Empirical AEff: ' + e.minutes_per_claim.toFixed(2) + ' minutes per claim audited (' +
      e.claims_audited + ' claim' + (e.claims_audited === 1 ? '' : 's') + ' of ' + total + ' audited, ' +
      e.sessions + ' session' + (e.sessions === 1 ? '' : 's') + ', ' + fmt(e.seconds) + ' in all).');
  }

  function post(path, body, keepalive) {
    return fetch(api + path, {
      method: 'POST',
      keepalive: !!keepalive,
      headers: { 'Content-Type': 'application/json', 'Authorization': 'Bearer ' + token() },
      body: JSON.stringify(body),
    });
  }

  // flush saves the cumulative seconds of the claims not saved yet.
  function flush(keepalive) {
    if (!writable || !token() || dirty.size === 0) {
      return Promise.resolve();
    }
    const batch = Array.from(dirty, (id) => ({ claim: id, seconds: Math.round((spent.get(id) || 0) * 10) / 10 }));
    dirty.clear();
    const retry = () => batch.forEach((c) => dirty.add(c.claim));
    return post('/timings', { session: session, claims: batch }, keepalive)
      .then((r) => {
        if (!r.ok) {
          retry();
          setText('token-status', r.status === 401 ? 'the token was refused: timings are not saved' : 'saving timings failed (' + r.status + ')');
          return null;
        }
        return r.json().then((data) => {
          root.dataset.saved = String(Number(root.dataset.saved || 0) + 1);
          showEffort(data.audit_effort);
        });
      })
      .catch(retry);
  }

  function anchor(id) {
    const a = document.getElementById('claim-' + id);
    return a && a.closest('#report') ? a : null;
  }

  function pieces(id) {
    return Array.from(document.querySelectorAll('#report [data-claim]')).filter((a) => a.dataset.claim === id);
  }

  function mark(id) {
    document.querySelectorAll('#report [data-claim]').forEach((a) => a.classList.toggle('selected', a.dataset.claim === id));
  }

  // reveal scrolls the claim into view; on a narrow screen the panel is a
  // sheet over the lower half, and the claim's scroll margin keeps it above.
  function reveal(a) {
    a.scrollIntoView({ block: narrow.matches ? 'nearest' : 'center' });
  }

  function closeButton() {
    const b = document.getElementById('panel-close');
    if (b) {
      return b;
    }
    const nb = document.createElement('button');
    nb.type = 'button';
    nb.className = 'panel-close';
    nb.id = 'panel-close';
    nb.setAttribute('aria-label', 'close the claim panel');
    nb.textContent = '×';
    return nb;
  }

  function loadPanel(id) {
    return fetch(base + '/claims/' + encodeURIComponent(id), { headers: { 'Accept': 'text/html' } })
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error('status ' + r.status))))
      .then((html) => {
        if (current !== id) {
          return;
        }
        const doc = new DOMParser().parseFromString(html, 'text/html');
        const node = doc.getElementById('claim-panel');
        if (!node) {
          return;
        }
        panel.replaceChildren(closeButton(), document.adoptNode(node));
        panel.classList.add('open');
        bindReview();
        showTimer();
        if (node.dataset.status) {
          const cls = 'claim st-' + node.dataset.status + (node.dataset.reviewed === 'true' ? ' reviewed' : '') +
            (node.dataset.disputed === 'true' ? ' disputed' : '') + ' selected';
          pieces(id).forEach((a) => {
            a.className = cls;
          });
        }
      })
      .catch((e) => {
        const p = document.createElement('p');
        p.className = 'note';
        p.textContent = 'Could not load claim ' + id + ': ' + e.message;
        panel.replaceChildren(closeButton(), p);
        panel.classList.add('open');
      });
  }

  function select(id) {
    const a = anchor(id);
    if (!a) {
      return;
    }
    tick();
    flush(false);
    current = id;
    mark(id);
    if (typeof a.focus === 'function') {
      a.focus({ preventScroll: true });
    }
    reveal(a);
    history.replaceState(null, '', '?claim=' + encodeURIComponent(id));
    loadPanel(id);
  }

  function step(delta) {
    if (claims.length === 0) {
      return;
    }
    let i = claims.findIndex((a) => a.dataset.claim === current);
    // Past the page's last claim (or before its first): the next page.
    const away = delta > 0 ? root.dataset.next : root.dataset.prev;
    if (i >= 0 && away && (i + delta >= claims.length || i + delta < 0)) {
      tick();
      flush(true);
      location.assign(away);
      return;
    }
    i = i < 0 ? (delta > 0 ? 0 : claims.length - 1) : Math.min(Math.max(i + delta, 0), claims.length - 1);
    select(claims[i].dataset.claim);
  }

  // fillReview puts the review the named reviewer saved on this claim, as
  // the panel lists it, into the form, so saving again edits it.
  function fillReview(form) {
    const who = form.elements.reviewer.value.trim() || ANONYMOUS;
    const own = Array.from(panel.querySelectorAll('#reviews li.review-item')).find((li) => li.dataset.reviewer === who);
    if (!own) {
      return;
    }
    form.elements.label.value = own.dataset.label;
    if (form.elements.url) {
      form.elements.url.value = own.dataset.url || '';
    }
    const note = own.querySelector('.review-note');
    form.elements.note.value = note ? note.textContent : '';
  }

  function bindReview() {
    const form = document.getElementById('review-form');
    if (!form) {
      return;
    }
    form.elements.reviewer.value = savedReviewer();
    fillReview(form);
    form.elements.reviewer.addEventListener('change', () => fillReview(form));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const id = form.dataset.claim;
      if (!token()) {
        setText('review-status', 'enter the reviewer token above first');
        return;
      }
      const reviewer = form.elements.reviewer.value.trim();
      const body = { claim: id, reviewer: reviewer, label: form.elements.label.value, note: form.elements.note.value };
      if (form.elements.url && form.elements.url.value) {
        body.url = form.elements.url.value;
      }
      post('/reviews', body, false)
        .then((r) => {
          if (!r.ok) {
            return r.json().then((d) => setText('review-status', 'not saved: ' + (d.error || r.status)));
          }
          rememberReviewer(reviewer);
          return loadPanel(id);
        })
        .catch((err) => setText('review-status', 'not saved: ' + err.message));
    });
  }

  function bindToken() {
    const form = document.getElementById('token-form');
    if (!form) {
      return;
    }
    if (token()) {
      setText('token-status', 'token set: timings are saved');
    }
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const input = form.elements.token;
      const value = input.value.trim();
      input.value = '';
      if (!value) {
        sessionStorage.removeItem(TOKEN_KEY);
        setText('token-status', 'token cleared: timings are not saved');
        return;
      }
      fetch(api + '/timings', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Authorization': 'Bearer ' + value },
        body: JSON.stringify({ session: session, claims: [] }),
      }).then((r) => {
        if (r.ok) {
          sessionStorage.setItem(TOKEN_KEY, value);
          setText('token-status', 'token accepted: timings are saved');
          flush(false);
        } else {
          setText('token-status', r.status === 401 ? 'token refused' : 'token check failed (' + r.status + ')');
        }
      }).catch((err) => setText('token-status', 'token check failed: ' + err.message));
    });
  }

  document.addEventListener('click', (e) => {
    if (e.target.closest('#panel-close')) {
      panel.classList.remove('open');
      return;
    }
    const a = e.target.closest('#report [data-claim], a.claim-link[data-claim]');
    if (!a || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) {
      return;
    }
    e.preventDefault();
    select(a.dataset.claim);
  });

  document.addEventListener('keydown', (e) => {
    lastInput = Date.now();
    const t = e.target;
    if (e.ctrlKey || e.metaKey || e.altKey || (t && t.closest && t.closest('input, textarea, select'))) {
      return;
    }
    if (e.key === 'j') {
      e.preventDefault();
      step(1);
    } else if (e.key === 'k') {
      e.preventDefault();
      step(-1);
    }
  });

  ['mousemove', 'pointerdown', 'wheel', 'scroll', 'touchstart'].forEach((type) => {
    document.addEventListener(type, () => {
      lastInput = Date.now();
    }, { passive: true, capture: true });
  });
  window.addEventListener('focus', tick);
  window.addEventListener('blur', tick);
  document.addEventListener('visibilitychange', () => {
    tick();
    if (document.visibilityState === 'hidden') {
      flush(true);
    }
  });
  window.addEventListener('pagehide', () => {
    tick();
    flush(true);
  });

  const params = new URLSearchParams(location.search);
  const first = params.get('claim');
  if (first && anchor(first)) {
    current = first;
    mark(first);
    bindReview();
    reveal(anchor(first));
  }
  bindToken();
  wasActive = active();
  setInterval(tick, 1000);
  setInterval(() => flush(false), FLUSH_MS);
})();
