// The mission file's editor: line numbers beside the text, the server's check of what is typed
// (debounced; each problem a button that moves the cursor to its line and column), and the
// mission at the cursor as phones show it. Without scripts the page is a plain form that saves.
(function () {
  'use strict';
  var form = document.getElementById('editor-form');
  var text = document.getElementById('mission-text');
  var gutter = document.getElementById('gutter');
  var list = document.getElementById('problems');
  var preview = document.getElementById('mission-preview');
  var place = document.getElementById('cursor-place');
  if (!form || !text || !window.fetch) return;
  var checkURL = form.getAttribute('data-check');
  var csrf = form.querySelector('input[name="csrf"]').value;
  var timer = null, lastSent = null, lastMission = null, sequence = 0;

  function lineCount() { return text.value.split('\n').length; }

  function drawGutter() {
    var count = lineCount(), shown = gutter.getAttribute('data-count');
    if (String(count) === shown) return;
    var numbers = [];
    for (var i = 1; i <= count; i++) numbers.push(i);
    gutter.textContent = numbers.join('\n');
    gutter.setAttribute('data-count', String(count));
  }

  function cursor() {
    var before = text.value.slice(0, text.selectionStart).split('\n');
    return { line: before.length, column: before[before.length - 1].length + 1 };
  }

  // Moves the cursor to `line`:`column` (1-based) and scrolls the line into view.
  function go(line, column) {
    var lines = text.value.split('\n'), offset = 0;
    for (var i = 0; i < Math.min(line - 1, lines.length - 1); i++) offset += lines[i].length + 1;
    var row = lines[Math.min(line, lines.length) - 1] || '';
    offset += Math.min(Math.max(column - 1, 0), row.length);
    text.focus();
    text.setSelectionRange(offset, offset);
    var height = parseFloat(getComputedStyle(text).lineHeight) || 20;
    text.scrollTop = Math.max(0, (line - 3) * height);
    gutter.scrollTop = text.scrollTop;
    showPlace();
    schedule(0);
  }

  function showPlace() {
    var at = cursor();
    place.textContent = 'Line ' + at.line + ', column ' + at.column;
  }

  function el(name, attributes, children) {
    var node = document.createElement(name);
    Object.keys(attributes || {}).forEach(function (key) { node.setAttribute(key, attributes[key]); });
    (children || []).forEach(function (child) { if (child != null) node.append(child); });
    return node;
  }

  function drawProblems(problems) {
    list.textContent = '';
    if (!problems.length) { list.append(el('p', {}, ['No problems.'])); return; }
    list.append(el('ul', { class: 'problems' }, problems.map(function (p) {
      var button = el('button', { type: 'button', class: 'goto', 'data-line': p.line, 'data-column': p.column }, [p.line + ':' + p.column]);
      return el('li', { class: p.severity }, [button, ' ' + p.severity + ': ' + p.message]);
    })));
  }

  function drawMission(mission) {
    var key = mission ? JSON.stringify(mission) : '';
    if (key === lastMission) return;
    lastMission = key;
    preview.textContent = '';
    if (!mission) {
      preview.append(el('p', { class: 'muted' }, ['Put the cursor in a mission to see it as phones show it (once the file has no errors).']));
      return;
    }
    mission.languages.forEach(function (card) {
      preview.append(el('div', { class: 'card', lang: card.language }, [
        el('h3', {}, [card.title + ' ']), el('p', { class: 'muted', lang: 'en' }, ['Language: ' + card.language]),
        card.after ? el('p', { class: 'muted', lang: 'en' }, ['Opens after: ' + card.after]) : null,
        el('ol', {}, card.tasks.map(function (task) {
          return el('li', {}, [task.prompt, task.hint ? el('br') : null, task.hint ? el('span', { class: 'muted' }, [task.hint]) : null,
            task.frontCamera ? el('span', { class: 'tag', lang: 'en' }, [' front camera']) : null]);
        })),
        card.fact ? el('p', {}, [card.fact]) : null,
        el('p', { class: 'muted', lang: 'en' }, ['Reward: ' + card.reward + ', drawn from stand-in photos:']),
        el('img', { class: 'reward', src: card.picture, alt: 'The reward of ' + card.title + ', drawn from stand-in photos', width: '320', loading: 'lazy' })
      ]));
    });
  }

  function check() {
    timer = null;
    var at = cursor();
    var key = at.line + '\n' + text.value;
    if (key === lastSent) return;
    lastSent = key;
    var mine = ++sequence;
    var body = new URLSearchParams({ csrf: csrf, text: text.value, line: String(at.line) });
    fetch(checkURL, { method: 'POST', credentials: 'same-origin', body: body })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (answer) {
        if (!answer || mine !== sequence) return;
        drawProblems(answer.problems);
        drawMission(answer.mission);
        form.setAttribute('data-checked', answer.hash);
      })
      .catch(function () { lastSent = null; });
  }

  function schedule(delay) {
    if (timer) clearTimeout(timer);
    timer = setTimeout(check, delay);
  }

  text.addEventListener('input', function () { drawGutter(); showPlace(); schedule(400); });
  text.addEventListener('scroll', function () { gutter.scrollTop = text.scrollTop; });
  ['click', 'keyup'].forEach(function (name) { text.addEventListener(name, function () { showPlace(); schedule(300); }); });
  list.addEventListener('click', function (event) {
    var button = event.target.closest('button.goto');
    if (button) go(Number(button.getAttribute('data-line')), Number(button.getAttribute('data-column')));
  });
  drawGutter();
  showPlace();
  schedule(0);
})();
