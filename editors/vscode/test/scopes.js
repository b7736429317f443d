// Tokenises files with the extension's grammars exactly as VS Code does (vscode-textmate on the
// Oniguruma engine) and prints, per file, the innermost scope of every character (null: none
// but the file's own), as JSON. tests/cli/test_textmate_grammar.py compares it with its own
// reading of the same patterns; run `npm install` here first (the devDependencies).
const fs = require("fs");
const path = require("path");
const oniguruma = require("vscode-oniguruma");
const textmate = require("vscode-textmate");

const root = path.join(__dirname, "..");
const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const byExtension = {};
for (const language of manifest.contributes.languages) {
  const grammar = manifest.contributes.grammars.find((g) => g.language === language.id);
  for (const extension of language.extensions) byExtension[extension] = grammar;
}

async function main(files) {
  const wasm = fs.readFileSync(path.join(path.dirname(require.resolve("vscode-oniguruma")), "onig.wasm"));
  await oniguruma.loadWASM(wasm.buffer);
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName) => {
      const g = manifest.contributes.grammars.find((x) => x.scopeName === scopeName);
      return g ? textmate.parseRawGrammar(fs.readFileSync(path.join(root, g.path), "utf8"), g.path) : null;
    },
  });
  const out = {};
  for (const file of files) {
    const g = byExtension[path.extname(file)];
    const grammar = await registry.loadGrammar(g.scopeName);
    let state = textmate.INITIAL;
    const scopes = [];
    for (const line of fs.readFileSync(file, "utf8").split("\n")) {
      const result = grammar.tokenizeLine(line, state);
      for (const token of result.tokens) {
        const inner = token.scopes.length > 1 ? token.scopes[token.scopes.length - 1] : null;
        for (let i = token.startIndex; i < Math.min(token.endIndex, line.length); i++) scopes.push(inner);
      }
      scopes.push(null); // the newline
      state = result.ruleStack;
    }
    out[file] = scopes;
  }
  process.stdout.write(JSON.stringify(out));
}

main(process.argv.slice(2)).catch((e) => { console.error(e); process.exit(1); });
