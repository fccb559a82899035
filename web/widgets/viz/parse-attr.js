// parse-attr.js - attribute parsing that never throws (pure). Each parser takes the raw
// attribute (string or null) and a spec, and returns { value, error }: error is a short
// message for the reader when the attribute was present but unusable; value is then the default.
//   spec: { type: "number", default, min, max, integer } | { type: "numbers", default, min, max, minLength, maxLength }
//         | { type: "enum", default, values } | { type: "enums", default, values } | { type: "bool" }
// A list default is handed out as a copy: a caller that changes the array it got changes no
// other element's default.
export function parseAttr(name, raw, spec) {
  const dflt = () => (Array.isArray(spec.default) ? spec.default.slice() : spec.default);
  const fallback = (why) => ({ value: dflt(), error: `${name}="${String(raw).slice(0, 40)}" ${why}; using ${show(spec.default)}` });
  if (spec.type === "bool") return { value: raw !== null && raw !== "false", error: null };
  if (raw === null || raw === undefined) return { value: dflt(), error: null };
  if (spec.type === "number") {
    const v = raw.trim() === "" ? NaN : Number(raw);
    if (!Number.isFinite(v)) return fallback("is not a number");
    if (spec.integer && !Number.isInteger(v)) return fallback("is not a whole number");
    if (spec.min !== undefined && v < spec.min) return fallback(`is below ${spec.min}`);
    if (spec.max !== undefined && v > spec.max) return fallback(`is above ${spec.max}`);
    return { value: v, error: null };
  }
  if (spec.type === "numbers") {
    const parts = raw.split(/[\s,]+/).filter(Boolean);
    const v = parts.map(Number);
    if (!v.length || v.some((x) => !Number.isFinite(x))) return fallback("is not a list of numbers");
    if (spec.minLength && v.length < spec.minLength) return fallback(`needs at least ${spec.minLength} numbers`);
    if (spec.maxLength && v.length > spec.maxLength) return fallback(`has more than ${spec.maxLength} numbers`);
    if (spec.min !== undefined && v.some((x) => x < spec.min)) return fallback(`has a number below ${spec.min}`);
    if (spec.max !== undefined && v.some((x) => x > spec.max)) return fallback(`has a number above ${spec.max}`);
    return { value: v, error: null };
  }
  if (spec.type === "enum") {
    const v = raw.trim();
    return spec.values.includes(v) ? { value: v, error: null } : fallback(`is not one of ${spec.values.join(", ")}`);
  }
  if (spec.type === "enums") {
    const v = raw.split(/[\s,]+/).filter(Boolean);
    const bad = v.find((x) => !spec.values.includes(x));
    if (!v.length || bad !== undefined) return fallback(`is not a list of ${spec.values.join(", ")}`);
    return { value: v, error: null };
  }
  throw new TypeError(`parseAttr: unknown type ${spec.type}`); // a programming error, not an attribute
}

function show(v) {
  return Array.isArray(v) ? v.join(" ") : String(v);
}
