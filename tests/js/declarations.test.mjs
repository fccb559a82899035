// declarations.test.mjs - dist/simplexity.d.ts (hand-written) against dist/simplexity.js, read
// with the TypeScript compiler API: the declaration file compiles; the module's exports are
// exactly the declared value exports, each of the declared kind (function, class, object) and
// with the JS function's parameter count; Model's static and instance members (methods vs
// read-only getters) and SimplexityError's fields match; and the objects the API returns (info(),
// model.config, forward results, attention maps, batches, per-head tables) and the option objects
// whose fields the JS lists (it rejects unknown fields) have exactly the declared fields.
// tests/types (make test-types) checks the other direction: documented uses type-check.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
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
const { MODEL_DEFAULTS } = await import(new URL("model.js", DIST).href);
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

  test("Model: static and instance members, readonly getters, parameter counts", () => {
    const { Model } = sx;
    const statics = propsOf(valueType("Model")).filter((n) => n !== "prototype");
    const jsStatics = Object.getOwnPropertyNames(Model).filter((n) => !["length", "name", "prototype"].includes(n));
    assert.deepEqual(statics, sorted(jsStatics));
    const instanceType = checker.getDeclaredTypeOfSymbol(exported.get("Model"));
    const members = checker.getPropertiesOfType(instanceType);
    const jsMembers = Object.getOwnPropertyNames(Model.prototype).filter((n) => n !== "constructor");
    assert.deepEqual(
      kinds(sorted(members.map((m) => m.name)), (n) => memberKind(members.find((m) => m.name === n))),
      kinds(sorted(jsMembers), (n) => jsKind(Model.prototype, n)));
    for (const m of members) {
      if (memberKind(m) !== "method") continue;
      const sigs = signatures(checker.getTypeOfSymbolAtLocation(m, source));
      assert.equal(maxParams(sigs), Model.prototype[m.name].length, `model.${m.name}: declared parameters vs the JS's`);
    }
    for (const n of statics) {
      const sigs = signatures(checker.getTypeOfSymbolAtLocation(checker.getPropertyOfType(valueType("Model"), n), source));
      assert.equal(maxParams(sigs), Model[n].length, `Model.${n}: declared parameters vs the JS's`);
    }
    // The JS constructor's second parameter is Model.load's private path (guarded by a symbol
    // no caller can have), so it is left undeclared on purpose.
    assert.equal(maxParams(signatures(valueType("Model"), ts.SignatureKind.Construct)), Model.length - 1);
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
      const f = model.forward(batch.src, batch.tgt, { count: 2 });
      assert.deepEqual(propsOf(declaredType("ForwardResult")), sorted(Object.keys(f)), "model.forward");
      assert.ok(f.attention.length > 0);
      for (const a of f.attention) assert.deepEqual(propsOf(declaredType("AttentionMap")), sorted(Object.keys(a)), "an attention map");
      const perHead = propsOf(declaredType("PerHead"));
      assert.deepEqual(perHead, sorted(Object.keys(model.alphas())), "model.alphas()");
      assert.deepEqual(perHead, sorted(Object.keys(model.spans())), "model.spans()");
    } finally {
      model.free();
    }
  });

  test("option objects: the declared fields are the ones the JS accepts", () => {
    const { Model, tasks } = sx;
    assert.deepEqual(propsOf(declaredType("ModelConfig")), sorted(Object.keys(MODEL_DEFAULTS)), "ModelConfig");
    assert.deepEqual(propsOf(declaredType("ModelConfig")), knownFields((o) => new Model({ task: "reverse", ...o })), "new Model");
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
      assert.deepEqual(optionProps(sigs("save"), 0), knownFields((o) => model.save(o)), "model.save");
    } finally {
      model.free();
    }
  });
});
