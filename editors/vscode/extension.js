// Starts `tactl lsp` (the command in the setting tactl.server.command) for the languages
// package.json declares; everything the editor shows beyond highlighting comes from the server.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

const LANGUAGES = ["tactl-alg", "tactl-rta", "tactl-ta", "tactl-eta", "tactl-pml"];
let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("tactl").get("server.command");
  const server = { command, args };
  client = new LanguageClient("tactl", "tactl", { run: server, debug: server }, {
    documentSelector: LANGUAGES.flatMap((language) => [
      { scheme: "file", language }, { scheme: "untitled", language }]),
  });
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
