// Module load hook for CLIs shipped as one self-starting bundle (Qwen Code up to 0.15): it
// exports nothing and runs the CLI's main() when imported. For the one bundle named in `data`,
// the hook leaves the CLI unstarted and adds an export that initialises and returns the
// bundle's own IdeClient and ideContextStore. Nothing else of the CLI's code changes.

let bundleUrl;

export function initialize(data) {
  bundleUrl = data.bundleUrl;
}

/** The esbuild lazy-initialiser (`var init_x = __esm({`) whose body assigns `assignment`. */
function initialiserOf(source, assignment) {
  const at = source.indexOf(assignment);
  if (at < 0) throw new Error(`bundle has no "${assignment.trim()}"`);
  const head = source.lastIndexOf(' = __esm(', at);
  const name = /var (init_[\w$]+)$/.exec(source.slice(source.lastIndexOf('\n', head) + 1, head));
  if (!name) throw new Error(`no esbuild initialiser around "${assignment.trim()}"`);
  return name[1];
}

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (url !== bundleUrl) return loaded;
  const source = String(loaded.source);
  const start = source.lastIndexOf('\nmain().catch(');
  if (start < 0) throw new Error('bundle does not start main() at its end');
  const client = initialiserOf(source, '\n    IdeClient = class');
  const store = initialiserOf(source, '\n    ideContextStore = new');
  const patched =
    source.slice(0, start) + '\nfalse && main().catch(' + source.slice(start + '\nmain().catch('.length) +
    `\nexport function companion4jIdeClient() { ${client}(); ${store}(); return { IdeClient, ideContextStore }; }\n`;
  return { ...loaded, format: 'module', source: patched };
}
