// The tirc extension: starts `tirc lsp` for .tir files and shows schedule
// previews beside the source.
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("tirc");
  const command = config.get("path", "tirc");
  const serverOptions = {
    run: { command, args: ["lsp"], transport: TransportKind.stdio },
    debug: { command, args: ["lsp"], transport: TransportKind.stdio },
  };
  const clientOptions = {
    documentSelector: [{ scheme: "file", language: "tir" }, { scheme: "untitled", language: "tir" }],
    initializationOptions: {
      formatDialect: config.get("formatDialect", "classic"),
      debounceMs: config.get("debounceMs", 10),
    },
    middleware: {
      // Schedule lenses open the preview beside the source instead of
      // discarding the server's answer.
      provideCodeLenses: async (document, token, next) => {
        const lenses = (await next(document, token)) || [];
        for (const lens of lenses) {
          if (lens.command && lens.command.command === "tirc.schedulePreview") {
            lens.command.command = "tirc.showSchedulePreview";
          }
        }
        return lenses;
      },
    },
  };
  client = new LanguageClient("tirc", "tirc language server", serverOptions, clientOptions);

  // The code lens on a schedule `def` runs tirc.schedulePreview; the client
  // forwards it to the server, and this command shows the answer in a new editor.
  context.subscriptions.push(
    vscode.commands.registerCommand("tirc.showSchedulePreview", async (argument) => {
      const editor = vscode.window.activeTextEditor;
      const request = argument || { uri: editor && editor.document.uri.toString() };
      if (request.step === undefined) {
        const step = await vscode.window.showInputBox({ prompt: "Show the module after step" });
        if (step === undefined) return;
        request.step = Number(step);
      }
      try {
        const result = await client.sendRequest("workspace/executeCommand", {
          command: "tirc.schedulePreview",
          arguments: [request],
        });
        const document = await vscode.workspace.openTextDocument({ language: "tir", content: result.text });
        await vscode.window.showTextDocument(document, vscode.ViewColumn.Beside, true);
      } catch (error) {
        vscode.window.showErrorMessage(String(error.message || error));
      }
    })
  );
  client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
