// handle-row.js - the keyboard of a group of draggable handles (the score bars of sx-fused,
// sx-simplex and sx-jacobian, the heads of sx-span-mask): one tab stop for the group, arrow keys
// along it. Apart from base.js so the widgets without such a group do not carry it.

// A group of handles as one tab stop (a roving tabindex, as sx-threshold's bars): Tab reaches the
// handle last used, ←/→ (or the keys [prev, next]) move along the group, every other key goes to
// onKey(event, i). Call it again with the new handles when the group is rebuilt.
export function handleRow(handles, onKey, at = 0, [prev, next] = ["ArrowLeft", "ArrowRight"]) {
  let cur = Math.min(at, handles.length - 1);
  const show = () => handles.forEach((h, k) => h.setAttribute("tabindex", k === cur ? 0 : -1));
  handles.forEach((h, i) => {
    h.addEventListener("focus", () => { cur = i; show(); });
    h.addEventListener("keydown", (e) => {
      if (e.key === prev || e.key === next) {
        e.preventDefault();
        handles[Math.max(0, Math.min(handles.length - 1, i + (e.key === prev ? -1 : 1)))].focus();
      } else onKey(e, i);
    });
  });
  show();
  return { get at() { return cur; } };
}
