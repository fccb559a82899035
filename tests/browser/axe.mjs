// axe.mjs - the accessibility audit the browser tests share: axe-core (a devDependency, never
// shipped) injected through the driver (the page's CSP does not stop it), its WCAG 2.x A/AA
// rules and best practices run over the document and every shadow root.
import fs from "node:fs/promises";
import { createRequire } from "node:module";

const AXE = await fs.readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];

/** axe's violations on the page, each as "rule (impact): help; node, node" (a few nodes). */
export async function audit(page) {
  await page.evaluate(AXE);
  return page.evaluate(async (tags) => {
    const r = await window.axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
    return r.violations.map((v) => `${v.id} (${v.impact}): ${v.help}; ${v.nodes.slice(0, 3).map((n) => `${n.target.join(" > ")} [${n.failureSummary.replace(/\s+/g, " ").slice(0, 160)}]`).join("; ")}`);
  }, TAGS);
}
