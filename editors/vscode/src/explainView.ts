// Read-only markdown pages (a diagnosis, this machine's facts) shown in the markdown preview.
import * as vscode from "vscode";

import { type ExplainResult, renderEnvMarkdown, renderFindingsMarkdown } from "./findings";

const SCHEME = "dldoctor";

export class ExplainView implements vscode.Disposable {
  private readonly pages = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly registration: vscode.Disposable;
  private counter = 0;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
      onDidChange: this.changed.event,
      provideTextDocumentContent: (uri) => this.pages.get(uri.path) ?? "",
    });
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }

  async showFindings(result: ExplainResult, source: string): Promise<void> {
    this.counter += 1;
    await this.show(`/diagnosis-${this.counter}.md`, renderFindingsMarkdown(result, source));
  }

  async showEnv(facts: unknown): Promise<void> {
    await this.show("/machine.md", renderEnvMarkdown(facts));
  }

  private async show(path: string, markdown: string): Promise<void> {
    this.pages.set(path, markdown);
    const uri = vscode.Uri.from({ scheme: SCHEME, path });
    this.changed.fire(uri);
    try {
      await vscode.commands.executeCommand("markdown.showPreview", uri);
    } catch {
      // No markdown preview (a trimmed-down editor): the source reads well enough.
      const document = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(document, { preview: true });
    }
  }
}
