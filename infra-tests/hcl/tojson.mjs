// Prints every *.tf file of one directory as JSON: {"<file name>": <hcl2json of that file>}.
import { parse } from "@cdktf/hcl2json";
import { readdirSync, readFileSync } from "fs";
import { join } from "path";

const dir = process.argv[2];
const out = {};
for (const f of readdirSync(dir).filter((n) => n.endsWith(".tf")).sort()) {
  out[f] = await parse(f, readFileSync(join(dir, f), "utf8"));
}
process.stdout.write(JSON.stringify(out));
