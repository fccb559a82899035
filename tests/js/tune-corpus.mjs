// tune-corpus.mjs - a fixed text to fine-tune <sx-write>'s character models on (shared by
// tests/js/write-tune.test.mjs and tests/browser/write-tune.mjs; not itself a test file): twelve
// sentences of a recipe, far from the models' Devil's Dictionary, in a seeded order, about 4 KB,
// so a few dozen steps lower the loss by a clear margin and the held-out tail holds the same kind
// of text.
import { mulberry32 } from "../../web/widgets/viz/mulberry32.js";

const SENTENCES = [
  "Put the flour and the salt in a large bowl.",
  "Rub the butter into the flour until it looks like fine crumbs.",
  "Stir in the sugar and the raisins.",
  "Beat the eggs with the milk in a jug.",
  "Pour the eggs into the bowl and mix to a soft dough.",
  "Turn the dough out onto a floured board.",
  "Roll it out until it is two fingers thick.",
  "Cut it into rounds and put them on a baking tray.",
  "Brush the tops with a little milk.",
  "Bake them in a hot oven for twelve minutes.",
  "Let them cool on a rack before you eat them.",
  "Serve the scones with butter and jam.",
];

/** About `n` characters of the recipe's sentences in an order drawn from `seed`. */
export function recipe(n = 4000, seed = 7) {
  const random = mulberry32(seed);
  let s = "";
  while (s.length < n) s += SENTENCES[Math.floor(random() * SENTENCES.length)] + (random() < 0.2 ? "\n" : " ");
  return s;
}
