// vocab.mjs - the character vocabulary of the text corpus: newline (id 0) and printable ASCII,
// space to tilde (ids 1 to 95), 96 symbols. tools/text/vocab.h holds the same map for C.
export const VOCAB = '\n' + Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('');

// Maps a text into the vocabulary: a tab becomes a space, CR LF and a lone CR a newline; any
// other character outside the vocabulary is dropped. counts.mapped and counts.dropped tally
// them by name ("tab", "CR", or "U+00E9").
export function normalizeChars(text, counts) {
  let out = '';
  const tally = (kind, key) => { counts[kind][key] = (counts[kind][key] ?? 0) + 1; };
  for (let i = 0; i < text.length; i++) {
    const c = text[i], code = text.charCodeAt(i);
    if (c === '\n' || (code >= 32 && code <= 126)) out += c;
    else if (c === '\t') { out += ' '; tally('mapped', 'tab'); }
    else if (c === '\r') {
      if (text[i + 1] !== '\n') out += '\n';
      tally('mapped', 'CR');
    } else tally('dropped', 'U+' + code.toString(16).toUpperCase().padStart(4, '0'));
  }
  return out;
}
