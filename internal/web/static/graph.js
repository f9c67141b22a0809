// claimtrace graph view: draws a report's provenance graph (sources →
// excerpts → reasoning → claims) with Cytoscape.js, served from this
// server (static/vendor, pinned in web/package.json), and shows the
// selected node in the panel.
//
// Served as a file under a Content-Security-Policy without inline script.
// Node data are text: the panel sets them with textContent; a claim's panel
// comes from the server already escaped and is parsed with DOMParser.
(function () {
  'use strict';

  const root = document.getElementById('graph-view');
  const box = document.getElementById('graph');
  const panel = document.getElementById('panel');
  if (!root || !box || typeof window.cytoscape !== 'function') {
    return;
  }

  // Cytoscape.js adds a <style> element (".__________cytoscape_container {
  // position: relative; }") unless an element with this id exists; the
  // Content-Security-Policy forbids inline style, so the rule is in
  // style.css and an inert marker stands in for the element.
  const STYLE_ID = '__________cytoscape_stylesheet';
  if (!document.getElementById(STYLE_ID)) {
    const marker = document.createElement('meta');
    marker.id = STYLE_ID;
    document.head.append(marker);
  }

  const status = {
    supported: ['#cdebd3', '#14532d'], partial: ['#fbeec1', '#6b4e00'], unsupported: ['#f9d7c2', '#7c2d12'],
    contradicted: ['#f6c4c8', '#7f1d1d'], unknown: ['#e4e6ea', '#374151'], uncited: ['#ffffff', '#374151'],
  };

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text != null) {
      e.textContent = text;
    }
    if (cls) {
      e.className = cls;
    }
    return e;
  }

  function closeButton() {
    const b = el('button', '×', 'panel-close');
    b.type = 'button';
    b.id = 'panel-close';
    b.setAttribute('aria-label', 'close the panel');
    b.addEventListener('click', () => panel.classList.remove('open'));
    return b;
  }

  function show(children) {
    panel.replaceChildren(closeButton(), ...children);
    panel.classList.add('open');
  }

  function sourcePanel(n, cy) {
    const d = n.data();
    const out = [el('h2', d.kind === 'excerpt' ? 'Excerpt of source ' + d.node : 'Source ' + d.node)];
    const title = el('p', null, 'source-name');
    if (d.url) {
      const a = el('a', d.text || d.url);
      a.href = d.url; // an http(s) URL: the server keeps no other
      a.rel = 'noreferrer noopener';
      a.target = '_blank';
      title.append(a);
    } else {
      title.textContent = d.text || d.label;
    }
    out.push(title, el('p', d.resolved ? 'resolved' : 'unresolved: provenance through it is not complete', 'small'));
    if (d.kind === 'excerpt') {
      out.push(el('blockquote', d.text, 'evidence-quote'));
    }
    if (d.conflict) {
      out.push(el('p', 'In a conflict with another source (red edge).', 'conflict'));
    }
    const list = el('ul', null, 'edges');
    const from = cy.getElementById(d.kind === 'excerpt' ? n.id() : 'x:' + d.node);
    const start = from.nonempty() ? from : n;
    start.outgoers('edge').forEach((e) => {
      const t = e.target().data();
      if (t.kind !== 'claim' && t.kind !== 'reasoning') {
        return;
      }
      const s = e.data('strength');
      list.append(el('li', e.data('rel') + ' ' + t.node + (s != null ? ' · ν ' + s.toFixed(2) : ' · no strength') + (e.data('label') ? ' (' + e.data('label') + ')' : '')));
    });
    if (list.childElementCount) {
      out.push(el('h3', 'Claims and steps it supports'), list);
    }
    return out;
  }

  function claimPanel(d) {
    const report = root.dataset.report;
    const link = el('a', 'Open in the report');
    link.href = report + '?claim=' + encodeURIComponent(d.node);
    const head = [el('p', null, 'small')];
    head[0].append(link);
    if (d.gated) {
      head.push(el('p', 'Held by the gate: ' + d.why, 'conflict'));
    }
    show(head.concat([el('p', 'Loading claim ' + d.node + '…', 'hint')]));
    fetch(report + '/claims/' + encodeURIComponent(d.node), { headers: { 'Accept': 'text/html' } })
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error('status ' + r.status))))
      .then((html) => {
        const doc = new DOMParser().parseFromString(html, 'text/html');
        const node = doc.getElementById('claim-panel');
        if (!node) {
          return;
        }
        // The review form and the audit timer belong to the report's page.
        node.querySelectorAll('#review-form, .timer').forEach((e) => e.remove());
        show(head.concat([document.adoptNode(node)]));
      })
      .catch((e) => show(head.concat([el('p', 'Could not load claim ' + d.node + ': ' + e.message, 'note')])));
  }

  function reasoningPanel(d) {
    show([el('h2', 'Reasoning step ' + d.node), el('p', d.label, 'small'), el('blockquote', d.text || '(no inference recorded)', 'claim-text')]);
  }

  fetch(root.dataset.src, { headers: { 'Accept': 'application/json' } })
    .then((r) => (r.ok ? r.json() : Promise.reject(new Error('status ' + r.status))))
    .then((view) => {
      const elements = [];
      view.nodes.forEach((n) => {
        const cls = [n.kind];
        if (n.gated) {
          cls.push('gated');
        }
        if (n.conflict) {
          cls.push('conflict');
        }
        if (!n.resolved) {
          cls.push('unresolved');
        }
        const colour = status[n.status] || status.unknown;
        elements.push({
          group: 'nodes', classes: cls,
          data: Object.assign({}, n, { bg: colour[0], ink: colour[1] }),
          position: { x: n.x, y: n.y },
        });
      });
      view.edges.forEach((e) => {
        const cls = [e.rel];
        if (e.weak) {
          cls.push('weak');
        }
        elements.push({ group: 'edges', classes: cls, data: { id: e.id, source: e.from, target: e.to, rel: e.rel, strength: e.strength, label: e.label } });
      });
      const cy = window.cytoscape({
        container: box,
        elements: elements,
        layout: { name: 'preset', fit: true, padding: 24 },
        minZoom: 0.05,
        maxZoom: 3,
        style: [
          { selector: 'node', style: { 'label': 'data(label)', 'font-size': 11, 'text-valign': 'center', 'text-halign': 'right', 'text-margin-x': 6, 'width': 18, 'height': 18, 'border-width': 1, 'border-color': '#5b6470', 'color': '#1d2024', 'text-max-width': 220, 'text-wrap': 'ellipsis' } },
          { selector: 'node.source', style: { 'shape': 'round-rectangle', 'background-color': '#bfd3f2', 'text-halign': 'left', 'text-margin-x': -6 } },
          { selector: 'node.excerpt', style: { 'shape': 'rectangle', 'background-color': '#fff0a8', 'width': 14, 'height': 14 } },
          { selector: 'node.reasoning', style: { 'shape': 'diamond', 'background-color': '#ddd1f7' } },
          { selector: 'node.claim', style: { 'shape': 'ellipse', 'background-color': 'data(bg)', 'border-color': 'data(ink)' } },
          { selector: 'node.unresolved', style: { 'background-color': '#ffffff', 'border-style': 'dotted' } },
          { selector: 'node.gated', style: { 'border-width': 3, 'border-color': '#b91c1c', 'border-style': 'dashed' } },
          { selector: 'node.conflict', style: { 'border-width': 3, 'border-color': '#b91c1c' } },
          { selector: 'node:selected', style: { 'overlay-color': '#1d4ed8', 'overlay-opacity': 0.25, 'overlay-padding': 6 } },
          { selector: 'edge', style: { 'width': 1.2, 'line-color': '#9aa3ae', 'target-arrow-color': '#9aa3ae', 'target-arrow-shape': 'triangle', 'arrow-scale': 0.7, 'curve-style': 'bezier' } },
          { selector: 'edge.quotes', style: { 'line-style': 'dotted', 'target-arrow-shape': 'none' } },
          { selector: 'edge.weak', style: { 'line-color': '#e0a100', 'target-arrow-color': '#e0a100', 'line-style': 'dashed' } },
          { selector: 'edge.contradicts', style: { 'line-color': '#b91c1c', 'target-arrow-color': '#b91c1c' } },
          { selector: 'edge.conflict', style: { 'line-color': '#b91c1c', 'width': 2.5, 'target-arrow-shape': 'none', 'curve-style': 'unbundled-bezier', 'control-point-distances': 60, 'label': 'data(label)', 'font-size': 9, 'color': '#b91c1c' } },
        ],
      });
      box.dataset.nodes = String(cy.nodes().length);
      // Where the first claim is drawn, for a test (or a reader) to find.
      const c0 = cy.nodes('.claim').first();
      if (c0.nonempty()) {
        const p = c0.renderedPosition();
        box.dataset.claimAt = Math.round(p.x) + ',' + Math.round(p.y);
      }
      box.dataset.edges = String(cy.edges().length);
      cy.on('tap', 'node', (ev) => {
        const n = ev.target;
        const d = n.data();
        box.dataset.selected = d.id;
        if (d.kind === 'claim') {
          claimPanel(d);
        } else if (d.kind === 'reasoning') {
          reasoningPanel(d);
        } else {
          show(sourcePanel(n, cy));
        }
      });
      // ?node=ID (a view id such as c:c3) selects a node on load.
      const first = new URLSearchParams(location.search).get('node');
      if (first && cy.getElementById(first).nonempty()) {
        cy.getElementById(first).select().emit('tap');
        cy.center(cy.getElementById(first));
      }
      box.dataset.ready = 'true';
    })
    .catch((e) => {
      box.replaceChildren(el('p', 'Could not draw the graph: ' + e.message, 'note'));
      box.dataset.ready = 'error';
    });

  panel.addEventListener('click', (e) => {
    if (e.target.closest('#panel-close')) {
      panel.classList.remove('open');
    }
  });
})();
