// Where the visitor is (the hash route), and drawing the page again. The app hands over its
// drawing functions with setView(), so that screens can ask for a redraw without importing
// the app that imports them.

let view = { render() {}, chrome() {} };

export function setView(v) { view = v; }

export function route() {
  const parts = location.hash.replace(/^#\/?/, '').split('/');
  return { name: parts[0] || '', arg: decodeURIComponent(parts[1] || '') };
}

// The current screen again; moveFocus when it is a new screen to the visitor.
export const render = (moveFocus) => view.render(moveFocus);

// Only the header, tabs and upload bar.
export const chrome = () => view.chrome();

export const go = (hash) => { if (location.hash === hash) render(true); else location.hash = hash; };
