// declarations.test.mjs - dist/simplexity.d.ts (hand-written) against dist/simplexity.js, read
// with the TypeScript compiler API: the declaration file compiles; the module's exports are
// exactly the declared value exports, each of the declared kind (function, class, object) and
// with the JS function's parameter count; Model's static and instance members (methods vs
// read-only getters) and SimplexityError's fields match; and the objects the API returns (info(),
// model.config, forward results, attention maps, batches, per-head tables) and the option objects
// whose fields the JS lists (it rejects unknown fields) have exactly the declared fields.
// tests/types (make test-types) checks the other direction: documented uses type-check.
//
// The widgets (dist/widgets.d.ts, hand-written, and dist/standalone.d.ts): widgets.js and the
// single-file build export exactly the declared values; the tags are TAGS; each element class
// (imported in Node: the widget modules define nothing there, so defineAttributes() is applied
// here as define() would) has exactly the declared members: one property per attribute of its
// `static spec` (its type from the spec: number, number list, the enum's exact values, boolean),
// its own getters/setters/methods and the fields it assigns (this.x = ...), each of its kind; the
// JSX attribute helper lists exactly each element's observed attributes; the declared events are
// exactly the `this.emit(verb, detail)` calls of the widgets' sources (read with the TypeScript
// parser), with the detail's fields, and the JSX helper has an on<event> listener per event;
// sx-attention's trainOptions are trainer.js's SCHEDULE; README "TypeScript"'s ts blocks are
// those tests/types/readme*.ts type-check.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { DIST, freshModule } from "./helpers.mjs";

let ts;
try {
  ts = (await import("typescript")).default;
} catch (e) {
  throw new Error(`declarations.test.mjs: the typescript devDependency is missing: run npm ci (${e.message})`);
}

// ------------------------------------------------------------ the declarations
const dtsPath = fileURLToPath(new URL("simplexity.d.ts", DIST));
const program = ts.createProgram([dtsPath], {
  strict: true, noEmit: true, target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ["lib.es2022.d.ts", "lib.dom.d.ts"], types: [],
});
const checker = program.getTypeChecker();
const source = program.getSourceFile(dtsPath);
assert.ok(source, `cannot read ${dtsPath}: run make`);
const exported = new Map(checker.getExportsOfModule(checker.getSymbolAtLocation(source)).map((s) => [s.name, s]));

const sorted = (xs) => [...xs].sort();
/** Property names of a declared type, sorted. */
const propsOf = (type) => sorted(checker.getPropertiesOfType(type).map((p) => p.name));
/** An exported interface or type alias, as a type. */
function declaredType(name) {
  const s = exported.get(name);
  assert.ok(s && s.flags & ts.SymbolFlags.Type, `simplexity.d.ts declares no type ${name}`);
  return checker.getDeclaredTypeOfSymbol(s);
}
/** The type of an exported value (for a class: its constructor side). */
function valueType(name) {
  return checker.getTypeOfSymbolAtLocation(exported.get(name), source);
}
/** The call (or construct) signatures of a type. */
function signatures(type, kind = ts.SignatureKind.Call) {
  return checker.getSignaturesOfType(type, kind);
}
/** The most parameters any signature declares (overloads included). */
const maxParams = (sigs) => Math.max(...sigs.map((s) => s.parameters.length));
/** The properties of parameter `index` of any signature of a method (undefined removed). */
function optionProps(sigs, index) {
  const names = new Set();
  for (const s of sigs) {
    const p = s.parameters[index];
    if (!p) continue;
    const t = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(p, source));
    for (const part of t.isUnion() ? t.types : [t]) {
      if (part.flags & ts.TypeFlags.Object) for (const n of propsOf(part)) names.add(n);
    }
  }
  return sorted(names);
}
/** The declared return type of a method's signatures, for those with one object return type. */
const returnProps = (sigs) => propsOf(checker.getReturnTypeOfSignature(sigs[0]));
/** A declared member: "method", "readonly" (property or getter) or "property" (writable). */
function memberKind(sym) {
  if (sym.flags & ts.SymbolFlags.Method) return "method";
  if (sym.flags & ts.SymbolFlags.GetAccessor && !(sym.flags & ts.SymbolFlags.SetAccessor)) return "readonly";
  const d = sym.valueDeclaration ?? sym.declarations[0];
  return ts.getCombinedModifierFlags(d) & ts.ModifierFlags.Readonly ? "readonly" : "property";
}
/** A JS member: "method" (a function value), "readonly" (a getter alone) or "property". */
function jsKind(obj, name) {
  const d = Object.getOwnPropertyDescriptor(obj, name);
  if (typeof d.value === "function") return "method";
  return d.get && !d.set ? "readonly" : "property";
}
const kinds = (names, kind) => Object.fromEntries(names.map((n) => [n, kind(n)]));
/** The field names a JS function lists when it rejects an unknown one ("(known: a, b)"). */
function knownFields(f) {
  try {
    f({ notAField: 1 });
  } catch (e) {
    const m = /\(known: ([^)]*)\)/.exec(e.message);
    assert.ok(m, `expected an unknown-field error listing the known fields, got: ${e.message}`);
    return sorted(m[1].split(", "));
  }
  assert.fail("an unknown option field was accepted");
}

// -------------------------------------------------------------------- the runtime
const sx = await freshModule("declarations");
await sx.init();
const { MODEL_DEFAULTS, RNN_DEFAULTS } = await import(new URL("model.js", DIST).href);
const isClass = (v) => typeof v === "function" && /^class\b/.test(Function.prototype.toString.call(v));

describe("declarations", () => {
  test("simplexity.d.ts compiles (strict)", () => {
    const diags = ts.getPreEmitDiagnostics(program).map((d) =>
      `${d.file ? d.file.fileName : ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    assert.deepEqual(diags, []);
  });

  test("the JS exports exactly the declared values", () => {
    const declared = sorted([...exported.values()].filter((s) => s.flags & ts.SymbolFlags.Value).map((s) => s.name));
    const js = sorted(Object.keys(sx));
    assert.deepEqual({
      undeclared: js.filter((n) => !declared.includes(n)),
      missingFromJs: declared.filter((n) => !js.includes(n)),
    }, { undeclared: [], missingFromJs: [] });
    assert.ok(js.length >= 23, `only ${js.length} exports`);
  });

  test("each export is of its declared kind, with the JS function's parameter count", () => {
    for (const [name, s] of exported) {
      if (!(s.flags & ts.SymbolFlags.Value)) continue;
      const v = sx[name];
      if (s.flags & ts.SymbolFlags.Class) {
        assert.ok(isClass(v), `${name} is declared a class`);
      } else if (s.flags & ts.SymbolFlags.Function) {
        assert.equal(typeof v, "function", `${name} is declared a function`);
        assert.ok(!isClass(v), `${name} is declared a function, the JS has a class`);
        assert.equal(maxParams(signatures(valueType(name))), v.length, `${name}: declared parameters vs the JS's`);
      } else {
        assert.ok(s.flags & ts.SymbolFlags.Variable, `${name}: unexpected declaration kind`);
        assert.equal(typeof v, "object", `${name} is declared a const object`);
      }
    }
  });

  test("SimplexityError: constructor and fields", () => {
    const E = sx.SimplexityError;
    assert.equal(maxParams(signatures(valueType("SimplexityError"), ts.SignatureKind.Construct)), E.length);
    const decl = exported.get("SimplexityError").valueDeclaration;
    const heritage = decl.heritageClauses.flatMap((h) => h.types.map((t) => t.expression.getText(source)));
    assert.deepEqual(heritage, ["Error"]);
    const e = new E("f: message", 2, 5);
    assert.ok(e instanceof Error);
    const own = sorted(decl.members.filter((m) => !ts.isConstructorDeclaration(m)).map((m) => m.name.getText(source)));
    assert.deepEqual(own, sorted(Object.keys(e)));
    assert.equal(e.name, "SimplexityError");
  });

  for (const cls of ["Model", "RNN", "TextModel", "Rationale"]) test(`${cls}: static and instance members, readonly getters, parameter counts`, () => {
    const Model = sx[cls];
    const statics = propsOf(valueType(cls)).filter((n) => n !== "prototype");
    const jsStatics = Object.getOwnPropertyNames(Model).filter((n) => !["length", "name", "prototype"].includes(n));
    assert.deepEqual(statics, sorted(jsStatics));
    const instanceType = checker.getDeclaredTypeOfSymbol(exported.get(cls));
    const members = checker.getPropertiesOfType(instanceType);
    const jsMembers = Object.getOwnPropertyNames(Model.prototype).filter((n) => n !== "constructor");
    assert.deepEqual(
      kinds(sorted(members.map((m) => m.name)), (n) => memberKind(members.find((m) => m.name === n))),
      kinds(sorted(jsMembers), (n) => jsKind(Model.prototype, n)));
    for (const m of members) {
      if (memberKind(m) !== "method") continue;
      const sigs = signatures(checker.getTypeOfSymbolAtLocation(m, source));
      assert.equal(maxParams(sigs), Model.prototype[m.name].length, `${cls}.prototype.${m.name}: declared parameters vs the JS's`);
    }
    for (const n of statics) {
      const sigs = signatures(checker.getTypeOfSymbolAtLocation(checker.getPropertyOfType(valueType(cls), n), source));
      if (!sigs.length) { // a static property (Rationale.methods, ...), declared readonly: a getter in the JS
        assert.equal(typeof Object.getOwnPropertyDescriptor(Model, n).get, "function", `${cls}.${n}: a static getter`);
        continue;
      }
      assert.equal(maxParams(sigs), Model[n].length, `${cls}.${n}: declared parameters vs the JS's`);
    }
    // The JS constructor's second parameter is Model.load's private path (guarded by a symbol
    // no caller can have), so it is left undeclared on purpose (TextModel's takes two, both declared;
    // Rationale has no load, its one parameter is declared).
    assert.equal(maxParams(signatures(valueType(cls), ts.SignatureKind.Construct)), Model.length - (cls === "TextModel" || cls === "Rationale" ? 0 : 1));
  });


  test("tasks: the declared methods and their parameter counts", () => {
    const t = checker.getTypeOfSymbolAtLocation(exported.get("tasks"), source);
    assert.deepEqual(propsOf(t), sorted(Object.keys(sx.tasks)));
    for (const p of checker.getPropertiesOfType(t)) {
      assert.equal(memberKind(p), "method", `tasks.${p.name}`);
      assert.equal(maxParams(signatures(checker.getTypeOfSymbolAtLocation(p, source))), sx.tasks[p.name].length, `tasks.${p.name}`);
    }
  });

  test("returned objects have exactly the declared fields", () => {
    const { Model, tasks } = sx;
    assert.deepEqual(propsOf(declaredType("Info")), sorted(Object.keys(sx.info())), "info()");
    const batch = tasks.generate("reverse", { count: 2 });
    assert.deepEqual(propsOf(declaredType("GeneratedBatch")), sorted(Object.keys(batch)), "tasks.generate");
    const taskMethods = checker.getTypeOfSymbolAtLocation(exported.get("tasks"), source);
    const lengthsSigs = signatures(checker.getTypeOfSymbolAtLocation(checker.getPropertyOfType(taskMethods, "lengths"), source));
    assert.deepEqual(returnProps(lengthsSigs), sorted(Object.keys(tasks.lengths("reverse"))), "tasks.lengths");
    const model = new Model({ task: "reverse", dModel: 8, heads: 2, layers: 1, dFF: 8, span: true });
    try {
      assert.deepEqual(propsOf(declaredType("ResolvedModelConfig")), sorted(Object.keys(model.config)), "model.config");
      const f = model.forward(batch.src, batch.tgt, { count: 2, probs: true });
      assert.deepEqual(propsOf(declaredType("ForwardResult")), sorted(Object.keys(f)), "model.forward");
      assert.ok(f.attention.length > 0);
      for (const a of f.attention) assert.deepEqual(propsOf(declaredType("AttentionMap")), sorted(Object.keys(a)), "an attention map");
      const [row] = model.decode([3, 4, 2]);
      assert.deepEqual(propsOf(declaredType("DecodedRow")), sorted(Object.keys(row)), "model.decode");
      assert.deepEqual(propsOf(declaredType("DecodeStep")), sorted(Object.keys(row.steps[0])), "model.decode's steps");
      const search = model.exactSearch([3, 2], { maxLen: 2 });
      assert.deepEqual(propsOf(declaredType("ExactSearchResult")), sorted(Object.keys(search)), "model.exactSearch");
      assert.deepEqual(propsOf(declaredType("OutputSequence")), sorted(Object.keys(search.sequences[0])), "a sequence");
      const perHead = propsOf(declaredType("PerHead"));
      assert.deepEqual(perHead, sorted(Object.keys(model.alphas())), "model.alphas()");
      assert.deepEqual(perHead, sorted(Object.keys(model.spans())), "model.spans()");
    } finally {
      model.free();
    }
    const rnn = new sx.RNN({ task: "reverse", embed: 4, hidden: 4, attnHidden: 4 });
    try {
      assert.deepEqual(propsOf(declaredType("ResolvedRNNConfig")), sorted(Object.keys(rnn.config)), "rnn.config");
      const f = rnn.forward(batch.src, batch.tgt, { count: 2 });
      assert.deepEqual(propsOf(declaredType("RNNForwardResult")), sorted(Object.keys(f)), "rnn.forward");
      assert.deepEqual(propsOf(declaredType("RNNAttention")), sorted(Object.keys(f.attention)), "rnn.forward's attention");
      assert.deepEqual(propsOf(declaredType("RNNDecoded")), sorted(Object.keys(rnn.attention([3, 4, 2]))), "rnn.attention");
      assert.deepEqual(propsOf(declaredType("RNNTrainResult")), sorted(Object.keys(rnn.train({ steps: 1, batch: 1 }))), "rnn.train");
      let info = null;
      rnn.train({ steps: 1, batch: 1, progress: (p) => void (info = p) });
      assert.deepEqual(propsOf(declaredType("RNNProgress")), sorted(Object.keys(info)), "rnn.train's progress");
    } finally {
      rnn.free();
    }
  });

  test("positions: txlScores' { out, terms } has the declared fields", () => {
    const r = sx.txlScores([1, 0, 0, 1], [1, 1], { u: [0, 1], v: [1, 0], terms: true });
    assert.deepEqual(returnProps(signatures(valueType("txlScores"))), sorted(Object.keys(r)), "txlScores");
  });

  test("patterns: attentionPattern's results have the declared fields", () => {
    const r = sx.attentionPattern(8, { kind: "local", width: 1 });
    assert.deepEqual(propsOf(declaredType("PatternMask")), sorted(Object.keys(r)), "attentionPattern");
    const l = sx.attentionPattern(8, { kind: "lsh", buckets: 4 }, { k: new Float32Array(16).map((_, i) => Math.sin(i)) });
    assert.deepEqual(propsOf(declaredType("LshPatternMask")), sorted(Object.keys(l)), "attentionPattern lsh");
    assert.deepEqual(propsOf(declaredType("AttentionPatternOptions")), ["causal", "head", "heads", "k", "keyLength"]);
  });

  test("option objects: the declared fields are the ones the JS accepts", () => {
    const { Model, tasks } = sx;
    assert.deepEqual(propsOf(declaredType("ModelConfig")), sorted(Object.keys(MODEL_DEFAULTS)), "ModelConfig");
    assert.deepEqual(propsOf(declaredType("ModelConfig")), knownFields((o) => new Model({ task: "reverse", ...o })), "new Model");
    assert.deepEqual(propsOf(declaredType("RNNConfig")), sorted(Object.keys(RNN_DEFAULTS)), "RNNConfig");
    assert.deepEqual(propsOf(declaredType("RNNConfig")), knownFields((o) => new sx.RNN({ task: "reverse", ...o })), "new RNN");
    const taskMethods = checker.getTypeOfSymbolAtLocation(exported.get("tasks"), source);
    const taskSigs = (n) => signatures(checker.getTypeOfSymbolAtLocation(checker.getPropertyOfType(taskMethods, n), source));
    assert.deepEqual(propsOf(declaredType("GenerateOptions")), knownFields((o) => tasks.generate("reverse", o)), "tasks.generate");
    assert.deepEqual(optionProps(taskSigs("generate"), 1), knownFields((o) => tasks.generate("reverse", o)), "tasks.generate");
    assert.deepEqual(optionProps(taskSigs("encode"), 2), knownFields((o) => tasks.encode("reverse", "ab", o)), "tasks.encode");
    assert.deepEqual(optionProps(taskSigs("answer"), 2), knownFields((o) => tasks.answer("reverse", [3, 4, 2], o)), "tasks.answer");
    const model = new Model({ task: "reverse", dModel: 8, heads: 2, layers: 1, dFF: 8 });
    try {
      const members = checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(exported.get("Model")));
      const sigs = (n) => signatures(checker.getTypeOfSymbolAtLocation(members.find((m) => m.name === n), source));
      const row = [3, 4, 2];
      assert.deepEqual(optionProps(sigs("forward"), 2), knownFields((o) => model.forward(row, [1, 4, 3], o)), "model.forward");
      assert.deepEqual(optionProps(sigs("trainStep"), 1), knownFields((o) => model.trainStep({ src: row, tgt: [1, 4, 3, 2] }, o)), "model.trainStep");
      assert.deepEqual(optionProps(sigs("generate"), 1), knownFields((o) => model.generate(row, o)), "model.generate");
      assert.deepEqual(optionProps(sigs("decode"), 1), knownFields((o) => model.decode(row, o)), "model.decode");
      assert.deepEqual(optionProps(sigs("exactSearch"), 1), knownFields((o) => model.exactSearch(row, o)), "model.exactSearch");
      assert.deepEqual(optionProps(sigs("save"), 0), knownFields((o) => model.save(o)), "model.save");
    } finally {
      model.free();
    }
    const rnn = new sx.RNN({ task: "reverse", embed: 4, hidden: 4, attnHidden: 4 });
    try {
      const members = checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(exported.get("RNN")));
      const sigs = (n) => signatures(checker.getTypeOfSymbolAtLocation(members.find((m) => m.name === n), source));
      const row = [3, 4, 2];
      assert.deepEqual(optionProps(sigs("forward"), 2), knownFields((o) => rnn.forward(row, [1, 4, 3], o)), "rnn.forward");
      assert.deepEqual(optionProps(sigs("trainStep"), 1), knownFields((o) => rnn.trainStep({ src: row, tgt: [1, 4, 3, 2] }, o)), "rnn.trainStep");
      assert.deepEqual(optionProps(sigs("train"), 0), knownFields((o) => rnn.train({ steps: 1, batch: 1, ...o })), "rnn.train");
      assert.deepEqual(optionProps(sigs("generate"), 1), knownFields((o) => rnn.generate(row, o)), "rnn.generate");
      assert.deepEqual(optionProps(sigs("attention"), 1), knownFields((o) => rnn.attention(row, o)), "rnn.attention");
      assert.deepEqual(optionProps(sigs("save"), 0), knownFields((o) => rnn.save(o)), "rnn.save");
    } finally {
      rnn.free();
    }
  });
});

// ====================================================================== the widgets
const wOptions = {
  strict: true, noEmit: true, target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ["lib.es2022.d.ts", "lib.dom.d.ts"], types: [],
};
const wPath = fileURLToPath(new URL("widgets.d.ts", DIST));
const sPath = fileURLToPath(new URL("standalone.d.ts", DIST));
const wProgram = ts.createProgram([wPath, sPath], wOptions);
const wc = wProgram.getTypeChecker();
const wSource = wProgram.getSourceFile(wPath);
const sSource = wProgram.getSourceFile(sPath);
assert.ok(wSource && sSource, `cannot read ${wPath} or ${sPath}: run make`);

const TAG_CLASSES = {
  "sx-simplex": "SxSimplexElement", "sx-entropy": "SxEntropyElement", "sx-trajectory": "SxTrajectoryElement",
  "sx-two-choice": "SxTwoChoiceElement", "sx-fused": "SxFusedElement", "sx-span-mask": "SxSpanMaskElement",
  "sx-pooling": "SxPoolingElement", "sx-attention": "SxAttentionElement", "sx-patterns": "SxPatternsElement",
  "sx-threshold": "SxThresholdElement",
  "sx-regularized": "SxRegularizedElement",
  "sx-scores": "SxScoresElement",
  "sx-positions": "SxPositionsElement",
  "sx-jacobian": "SxJacobianElement",
  "sx-explain": "SxExplainElement",
  "sx-heatmap": "SxHeatmapElement",
  "sx-loss": "SxLossElement",
  "sx-chain": "SxChainElement",
  "sx-write": "SxWriteElement",
  "sx-decode": "SxDecodeElement",
  "sx-cues": "SxCuesElement",
  "sx-costs": "SxCostsElement",
  "sx-bottleneck": "SxBottleneckElement",
  "sx-hard": "SxHardElement",
  "sx-rationale": "SxRationaleElement",
};
// Public-looking members of the JS classes that are not API, so not declared: the custom-element
// reactions (lib.dom declares none either) and the hooks between base.js and the widgets.
const INTERNAL = new Set(["constructor", "connectedCallback", "disconnectedCallback", "attributeChangedCallback",
  "build", "render", "settings", "pictures", "showMessage", "fail", "emit", "opts"]);
// Fields the element assigns for the page to read: declared readonly.
const ELEMENT_SET = new Set(["lastRenderMs", "lastLearn", "slices"]);

/** Property names of a type of this program, sorted (propsOf is the API program's). */
const wPropsOf = (type) => sorted(wc.getPropertiesOfType(type).map((p) => p.name));
const resolveAlias = (s) => (s.flags & ts.SymbolFlags.Alias ? wc.getAliasedSymbol(s) : s);
/** A module's exports: name -> { sym (resolved), typeOnly }. */
function exportsOf(source) {
  const out = new Map();
  for (const s of wc.getExportsOfModule(wc.getSymbolAtLocation(source))) {
    const typeOnly = (s.declarations ?? []).some((d) => ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly))
      || !(resolveAlias(s).flags & ts.SymbolFlags.Value);
    out.set(s.name, { sym: resolveAlias(s), typeOnly });
  }
  return out;
}
const wExports = exportsOf(wSource);
const wValues = (source) => sorted([...exportsOf(source)].filter(([, e]) => !e.typeOnly).map(([n]) => n));
function wType(name) {
  const e = wExports.get(name);
  assert.ok(e, `widgets.d.ts exports no ${name}`);
  return wc.getDeclaredTypeOfSymbol(e.sym);
}
/** A declared property's (read) type. */
function wPropType(type, name) {
  const p = wc.getPropertyOfType(type, name);
  assert.ok(p, `${wc.typeToString(type)} declares no ${name}`);
  return wc.getTypeOfSymbol(p);
}
/** A type as the spec describes it: number, numbers, enum:<values>, enums:<values>, bool (+ " | null";
 *  undefined, that of an optional property, dropped); any other type as tsc prints it. */
function describeType(t) {
  const parts = t.isUnion() && !(t.flags & ts.TypeFlags.Boolean) ? t.types : [t];
  const nullable = parts.some((p) => p.flags & ts.TypeFlags.Null);
  const rest = parts.filter((p) => !(p.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)));
  let d;
  if (rest.length === 1 && rest[0].flags & ts.TypeFlags.Number) d = "number";
  else if (rest.length && rest.every((p) => p.flags & (ts.TypeFlags.Boolean | ts.TypeFlags.BooleanLiteral))) d = "bool";
  else if (rest.length === 1 && rest[0].symbol?.name === "ReadonlyArray") {
    const inner = describeType(wc.getTypeArguments(rest[0])[0]);
    d = inner === "number" ? "numbers" : inner.startsWith("enum:") ? `enums:${inner.slice(5)}` : `readonly ${inner}[]`;
  } else if (rest.length && rest.every((p) => p.flags & ts.TypeFlags.StringLiteral)) d = `enum:${sorted(rest.map((p) => p.value)).join(" ")}`;
  else d = rest.map((p) => wc.typeToString(p)).join(" | ");
  return nullable ? `${d} | null` : d;
}
/** What a spec entry reads as. */
const specType = (s) => ({ number: "number", numbers: "numbers", bool: "bool" }[s.type]
  ?? `${s.type}:${sorted(s.values).join(" ")}`) + (s.default === null ? " | null" : "");
/** What a spec entry takes as a JSX attribute. */
const specAttr = (s) => ({ number: "number | `${number}`", numbers: "string", enums: "string", bool: "bool" }[s.type]
  ?? `enum:${sorted(s.values).join(" ")}`);
const camel = (name) => name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());

/** A declared member's required parameter count. */
const requiredParams = (sym) => {
  const sigs = wc.getSignaturesOfType(wc.getTypeOfSymbol(sym), ts.SignatureKind.Call);
  return Math.min(...sigs.map((s) => s.parameters.filter((p) => {
    const d = p.valueDeclaration;
    return !(d.questionToken || d.initializer || d.dotDotDotToken);
  }).length));
};
/** The declared members of an element class (inherited ones of SxElement included, HTMLElement's not). */
function declaredMembers(className) {
  const type = wType(className);
  const out = new Map();
  for (const m of wc.getPropertiesOfType(type)) {
    if ((m.declarations ?? []).some((d) => d.getSourceFile() === wSource)) out.set(m.name, m);
  }
  return out;
}

/** The JS members of a class down its prototype chain (below Object): name -> { kind, fn (a method) }. */
function jsMembers(Class) {
  const out = new Map();
  const accessors = new Set();
  for (let proto = Class.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const d = Object.getOwnPropertyDescriptor(proto, name);
      if (d.get || d.set) accessors.add(name);
      if (name.startsWith("_") || INTERNAL.has(name) || out.has(name)) continue;
      out.set(name, { kind: jsKind(proto, name), fn: typeof d.value === "function" ? d.value : null });
    }
    // fields: `this.name = ...` in the class's source (a name with an accessor is a property set)
    const src = Function.prototype.toString.call(proto.constructor);
    for (const [, name] of src.matchAll(/\bthis\.([A-Za-z$][\w$]*)\s*=(?!=)/g)) {
      if (name.startsWith("_") || INTERNAL.has(name) || out.has(name) || accessors.has(name)) continue;
      let p = Class.prototype, has = false;
      for (; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) if (Object.getOwnPropertyDescriptor(p, name)) has = true;
      if (!has) out.set(name, { kind: ELEMENT_SET.has(name) ? "readonly" : "property", fn: null });
    }
  }
  return out;
}

/** Every `this.emit(verb, detail)` of a widget source: { verb, fields: { name: initializer } }. */
function emitsOf(file) {
  const text = readFileSync(fileURLToPath(new URL(file, DIST)), "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const assigned = new Map(), calls = [];
  const isThis = (n) => n.kind === ts.SyntaxKind.ThisKeyword;
  const visit = (n) => {
    if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(n.left)
      && isThis(n.left.expression) && ts.isObjectLiteralExpression(n.right)) assigned.set(n.left.name.text, n.right);
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && isThis(n.expression.expression)
      && n.expression.name.text === "emit") calls.push(n);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return calls.map((call) => {
    const [verb, detail] = call.arguments;
    const where = `${file}: ${call.getText(sf).slice(0, 60)}`;
    assert.ok(verb && ts.isStringLiteral(verb), `${where}: the event's verb is not a string literal`);
    let obj = detail;
    if (obj && ts.isPropertyAccessExpression(obj) && isThis(obj.expression)) obj = assigned.get(obj.name.text);
    assert.ok(obj && ts.isObjectLiteralExpression(obj), `${where}: the detail is not an object literal (or this.x = one)`);
    const fields = {};
    for (const p of obj.properties) {
      assert.ok(ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p), `${where}: a detail field that is not name: value`);
      fields[p.name.getText(sf)] = ts.isPropertyAssignment(p) ? p.initializer : null;
    }
    return { verb: verb.text, fields, sf };
  });
}

const widgetsJs = await import(new URL("widgets.js", DIST).href);
const standaloneJs = await import(new URL("simplexity-widgets.js", DIST).href);
const { SxElement, defineAttributes } = await import(new URL("widgets/base.js", DIST).href);
const { SCHEDULE } = await import(new URL("trainer.js", DIST).href);
const classes = {};
for (const tag of widgetsJs.TAGS) {
  const mod = await import(new URL(`widgets/${tag}.js`, DIST).href).catch((e) => {
    throw new Error(`widgets.js lists <${tag}>, but widgets/${tag}.js cannot be imported: ${e.message}`);
  });
  const found = Object.values(mod).filter((v) => typeof v === "function" && v.prototype instanceof SxElement);
  assert.equal(found.length, 1, `widgets/${tag}.js: expected one exported element class`);
  defineAttributes(found[0]); // what define() does in a browser
  classes[tag] = found[0];
}

// Each tag's events: `<tag>-<verb>` -> the emit() calls (base.js's for every tag, then its own).
const baseEmits = emitsOf("widgets/base.js");
const events = {};
for (const tag of widgetsJs.TAGS) {
  events[tag] = {};
  for (const e of [...baseEmits, ...emitsOf(`widgets/${tag}.js`)]) (events[tag][`${tag}-${e.verb}`] ??= []).push(e);
}

describe("widget declarations", () => {
  test("widgets.d.ts and standalone.d.ts compile (strict)", () => {
    const diags = ts.getPreEmitDiagnostics(wProgram).map((d) =>
      `${d.file ? d.file.fileName : ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    assert.deepEqual(diags, []);
  });

  test("widgets.js and the single-file build export exactly the declared values", () => {
    assert.deepEqual(wValues(wSource), sorted(Object.keys(widgetsJs)), "widgets.js");
    assert.deepEqual(wValues(sSource), sorted(Object.keys(standaloneJs)), "simplexity-widgets.js (standalone.d.ts)");
    const load = wExports.get("load").sym;
    assert.equal(maxParams(wc.getSignaturesOfType(wc.getTypeOfSymbol(load), ts.SignatureKind.Call)), widgetsJs.load.length, "load");
    assert.ok(Object.isFrozen(widgetsJs.TAGS));
    assert.ok(wc.getTypeOfSymbol(wExports.get("TAGS").sym).symbol?.name === "ReadonlyArray", "TAGS is declared a readonly array");
  });

  test("MAPPINGS_CORE_TAGS: exactly the elements whose class asks for the mappings core", () => {
    assert.ok(Object.isFrozen(widgetsJs.MAPPINGS_CORE_TAGS));
    assert.equal(SxElement.core, "full", "the default");
    assert.deepEqual(sorted(widgetsJs.MAPPINGS_CORE_TAGS), sorted(widgetsJs.TAGS.filter((t) => classes[t].core === "mappings")));
    for (const t of widgetsJs.TAGS) assert.ok(["full", "mappings"].includes(classes[t].core), t);
  });

  test("the tags: TAGS, the tag and class maps, the JSX attributes, load()'s return", () => {
    const tags = sorted(widgetsJs.TAGS);
    assert.deepEqual(sorted(Object.keys(TAG_CLASSES)), tags, "this test's list of tags");
    assert.deepEqual(describeType(wc.getTypeArguments(wc.getTypeOfSymbol(wExports.get("TAGS").sym))[0]), `enum:${tags.join(" ")}`, "TAGS' element type");
    for (const map of ["SxElementTagNameMap", "SxElementConstructorMap", "SxWidgetAttributes"]) {
      assert.deepEqual(wPropsOf(wType(map)), tags, map);
    }
    for (const [tag, className] of Object.entries(TAG_CLASSES)) {
      const el = wPropType(wType("SxElementTagNameMap"), tag);
      assert.equal(el.symbol?.name, className, `SxElementTagNameMap["${tag}"]`);
      const ctor = wPropType(wType("SxElementConstructorMap"), tag);
      const made = wc.getSignaturesOfType(ctor, ts.SignatureKind.Construct).map((s) => wc.getReturnTypeOfSignature(s).symbol?.name);
      assert.deepEqual(made, [className], `SxElementConstructorMap["${tag}"] constructs`);
    }
  });

  for (const [tag, className] of Object.entries(TAG_CLASSES)) {
    test(`<${tag}>: ${className} declares exactly the JS's members, each of its kind`, () => {
      const Class = classes[tag];
      const declared = declaredMembers(className);
      const js = jsMembers(Class);
      assert.deepEqual({ undeclared: sorted([...js.keys()].filter((n) => !declared.has(n))), missingFromJs: sorted([...declared.keys()].filter((n) => !js.has(n))) },
        { undeclared: [], missingFromJs: [] }, `${tag}: members`);
      for (const [name, sym] of declared) {
        assert.equal(memberKind(sym), js.get(name).kind, `${tag}: ${name} (method, readonly or a writable property)`);
        if (js.get(name).fn) assert.equal(requiredParams(sym), js.get(name).fn.length, `${tag}: ${name}() required parameters`);
      }
    });

    test(`<${tag}>: each attribute's property and JSX attribute has the spec's type`, () => {
      const Class = classes[tag];
      const type = wType(className);
      for (const [attr, spec] of Object.entries(Class.spec)) {
        assert.equal(describeType(wPropType(type, camel(attr))), specType(spec), `${tag}: property ${camel(attr)} (attribute ${attr})`);
      }
      // the JSX props: the observed attributes, and on<event> per event with the event's listener
      const attrs = wPropType(wType("SxWidgetAttributes"), tag);
      const handlers = Object.keys(events[tag]).map((name) => `on${name}`);
      assert.deepEqual(wPropsOf(attrs), sorted([...Class.observedAttributes, ...handlers]), `SxWidgetAttributes["${tag}"]: the observed attributes and the events`);
      for (const attr of Class.observedAttributes) {
        const want = Class.spec[attr] ? specAttr(Class.spec[attr]) : "string";
        assert.equal(describeType(wPropType(attrs, attr)), want, `SxWidgetAttributes["${tag}"]["${attr}"]`);
      }
      for (const on of handlers) {
        const sigs = wc.getSignaturesOfType(wc.getNonNullableType(wPropType(attrs, on)), ts.SignatureKind.Call);
        assert.equal(sigs.length, 1, `SxWidgetAttributes["${tag}"]["${on}"] is a listener`);
        const param = wc.getTypeOfSymbol(sigs[0].parameters[0]);
        assert.equal(param, wPropType(wType("SxEventMap"), on.slice(2)), `SxWidgetAttributes["${tag}"]["${on}"] takes SxEventMap["${on.slice(2)}"]`);
      }
    });
  }

  test("events: exactly the ones the widgets emit, with the JS's detail fields", () => {
    const eventMap = wType("SxEventMap");
    for (const tag of widgetsJs.TAGS) {
      const elType = wType(TAG_CLASSES[tag]);
      for (const [name, e] of Object.entries(events[tag]).flatMap(([n, calls]) => calls.map((c) => [n, c]))) {
        const ev = wPropType(eventMap, name);
        assert.equal(ev.symbol?.name, "CustomEvent", `SxEventMap["${name}"] is a CustomEvent`);
        const detail = wc.getTypeArguments(ev)[0];
        assert.deepEqual(wPropsOf(detail), sorted(Object.keys(e.fields)), `SxEventMap["${name}"]: the detail's fields`);
        // a field that is the element's property (this.alpha) has the property's type
        for (const [field, init] of Object.entries(e.fields)) {
          if (init && ts.isPropertyAccessExpression(init) && init.expression.kind === ts.SyntaxKind.ThisKeyword
            && wc.getPropertyOfType(elType, init.name.text)) {
            assert.equal(describeType(wPropType(detail, field)), describeType(wPropType(elType, init.name.text)), `${name}: detail.${field} vs the element's ${init.name.text}`);
          }
        }
      }
    }
    assert.deepEqual(wPropsOf(eventMap), sorted(Object.values(events).flatMap((ev) => Object.keys(ev))), "SxEventMap: the events");
  });

  test("README \"TypeScript\": its ts blocks are the ones tests/types compiles", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const a = readme.indexOf("<!-- types:start -->"), b = readme.indexOf("<!-- types:end -->");
    assert.ok(a >= 0 && b > a, "README.md lacks the <!-- types:start --> ... <!-- types:end --> section");
    const blocks = [...readme.slice(a, b).matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
    const files = ["readme.ts", "readme-react.ts", "readme-preact.ts"];
    assert.equal(blocks.length, files.length, `README "TypeScript" has ${blocks.length} ts blocks, tests/types checks ${files.length}`);
    blocks.forEach((block, i) => {
      const file = readFileSync(new URL(`../types/${files[i]}`, import.meta.url), "utf8");
      assert.ok(file.includes(block), `tests/types/${files[i]} does not hold README "TypeScript" block ${i + 1} verbatim:\n${block}`);
    });
  });

  test("sx-attention's trainOptions: the fields of trainer.js's SCHEDULE", () => {
    assert.deepEqual(wPropsOf(wType("SxTrainOptions")), sorted(Object.keys(SCHEDULE)));
    for (const p of wc.getPropertiesOfType(wType("SxTrainOptions"))) {
      assert.ok(p.flags & ts.SymbolFlags.Optional, `SxTrainOptions.${p.name} is optional`);
      assert.equal(describeType(wPropType(wType("SxTrainOptions"), p.name)), "number", `SxTrainOptions.${p.name}`);
    }
  });
});

// ------------------------------------------------------------- explain.d.ts, arrays.d.ts
for (const name of ["explain", "arrays"]) describe(`${name} declarations`, () => {
  const path = fileURLToPath(new URL(`${name}.d.ts`, DIST));
  const prog = ts.createProgram([path], {
    strict: true, noEmit: true, target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"], types: [],
  });
  const chk = prog.getTypeChecker();
  const src = prog.getSourceFile(path);

  test(`${name}.d.ts compiles (strict); ${name}.js exports exactly its values, functions with their parameter counts`, async () => {
    const diags = ts.getPreEmitDiagnostics(prog).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    assert.deepEqual(diags, []);
    const ex = await import(new URL(`${name}.js`, DIST).href);
    const decl = chk.getExportsOfModule(chk.getSymbolAtLocation(src)).filter((s) => s.flags & ts.SymbolFlags.Value);
    assert.deepEqual(sorted(decl.map((s) => s.name)), sorted(Object.keys(ex)));
    for (const s of decl) {
      const type = chk.getTypeOfSymbolAtLocation(s, src), call = chk.getSignaturesOfType(type, ts.SignatureKind.Call);
      const sigs = call.length ? call : chk.getSignaturesOfType(type, ts.SignatureKind.Construct); // a class: its constructor
      assert.equal(Math.max(...sigs.map((g) => g.parameters.length)), ex[s.name].length, s.name);
    }
  });
});
