// app.js - what every chapter of the book shares (the widgets, widgets.js, do the drawing): it
// waits for the wasm core the chapter's widgets need (the small mappings core when they all
// draw mappings only, else the full one), then for their classes, says which build computes,
// runs the chapter's own wiring and marks the page ready. Each chapter's entry point
// (chapter.js, chapter-mappings.js) calls start().
import { info } from "../lib/mappings.js";
import { ready } from "../widgets/base.js";
import { TAGS, MAPPINGS_CORE_TAGS, load } from "../widgets/widgets.js";

const $ = (id) => document.getElementById(id);

function fail(what, err) {
  $("status").textContent = `Could not load ${what}: ${err.message}`;
  $("status").classList.add("error");
}

/** Starts a chapter: wire() (optional) runs once every widget of the page is defined. */
export async function start(wire = () => {}) {
  const tags = TAGS.filter((t) => document.querySelector(t));
  const core = tags.every((t) => MAPPINGS_CORE_TAGS.includes(t)) ? "mappings" : "full";
  try {
    await ready(core);
  } catch (err) {
    fail("the WebAssembly core", err);
    return;
  }
  // widgets.js has started loading each widget's module (its tag is on the page); the wiring
  // sets the widgets' properties, so their classes must be defined first
  try {
    await Promise.all(tags.map(load));
  } catch (err) {
    fail("a widget", err);
    return;
  }
  const i = info();
  $("status").textContent = "";
  $("status").hidden = true;
  $("engine").textContent = `Computed by the ${i.simd ? "SIMD" : "scalar"} WebAssembly build (ABI ${i.abi}, the ${core} core).`;
  wire();
  // every widget has rendered once: the test and the reader may start
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  document.body.dataset.ready = "1";
}
