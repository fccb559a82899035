// char-diff.js - which characters of a new output differ from the original (pure): <sx-explain>
// highlights them after an erasure. Position by position (the tasks' outputs are aligned by
// position: a changed letter shows where it changed); a longer new output's extra characters
// count as changed, and a shorter one reports how many of the original's were dropped.
//   charDiff(before, after) -> { chars: [{ ch, changed }], dropped, changed }
export function charDiff(before, after) {
  if (typeof before !== "string" || typeof after !== "string") throw new TypeError("charDiff: before and after must be strings");
  const a = [...before], b = [...after];
  const chars = b.map((ch, i) => ({ ch, changed: i >= a.length || a[i] !== ch }));
  const dropped = Math.max(0, a.length - b.length);
  return { chars, dropped, changed: chars.filter((c) => c.changed).length + dropped };
}
