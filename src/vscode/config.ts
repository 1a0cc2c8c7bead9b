/**
 * Typed access to the `similarSources.*` settings. The analysis options are
 * validated by the engine; here they are only read with their defaults.
 */
import * as vscode from 'vscode';
import type { Granularity, PanelOptions, SourceTypeFilter } from '../shared/protocol';

export const SECTION = 'similarSources';

export interface Settings {
  libraryFolders: string[];
  primarySourceFolders: string[];
  bibliographyFile: string;
  include: string[];
  exclude: string[];
  provider: 'embedded' | 'ollama';
  ollamaHost: string;
  ollamaModel: string;
  rerankModel: string;
  options: PanelOptions;
  minWords: number;
  citationTemplate: string;
  codeLens: boolean;
  cacheLifetimeHours: number;
  autoIndex: boolean;
  watchLibrary: boolean;
}

export function readSettings(scope?: vscode.ConfigurationScope): Settings {
  const c = vscode.workspace.getConfiguration(SECTION, scope);
  return {
    libraryFolders: c.get<string[]>('libraryFolders', []),
    primarySourceFolders: c.get<string[]>('primarySourceFolders', []),
    bibliographyFile: c.get<string>('bibliographyFile', ''),
    include: c.get<string[]>('include', []),
    exclude: c.get<string[]>('exclude', []),
    provider: c.get<'embedded' | 'ollama'>('provider', 'embedded'),
    ollamaHost: c.get<string>('ollamaHost', 'http://127.0.0.1:11434'),
    ollamaModel: c.get<string>('ollamaModel', 'nomic-embed-text'),
    rerankModel: c.get<string>('rerankModel', 'llama3.2'),
    options: {
      granularity: c.get<Granularity>('granularity', 'paragraph'),
      maxResults: c.get<number>('maxResults', 5),
      similarityThreshold: c.get<number>('similarityThreshold', 0),
      sourceType: c.get<SourceTypeFilter>('sourceType', 'secondary'),
      collectionFilter: c.get<string[]>('collectionFilter', []),
      useReranking: c.get<boolean>('useReranking', true),
      useContextualEmbedding: c.get<boolean>('useContextualEmbedding', true),
    },
    minWords: c.get<number>('minWords', 4),
    citationTemplate: c.get<string>('citationTemplate', '[@{key}, p. {page}]'),
    codeLens: c.get<boolean>('codeLens', true),
    cacheLifetimeHours: c.get<number>('cacheLifetimeHours', 24),
    autoIndex: c.get<boolean>('autoIndex', false),
    watchLibrary: c.get<boolean>('watchLibrary', true),
  };
}

const OPTION_SETTING: Record<keyof PanelOptions, string> = {
  granularity: 'granularity',
  maxResults: 'maxResults',
  similarityThreshold: 'similarityThreshold',
  sourceType: 'sourceType',
  collectionFilter: 'collectionFilter',
  useReranking: 'useReranking',
  useContextualEmbedding: 'useContextualEmbedding',
};

/** Panel controls write the settings (workspace when a folder is open), so both stay in step. */
export async function writeOption(option: keyof PanelOptions, value: unknown): Promise<void> {
  const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await vscode.workspace.getConfiguration(SECTION).update(OPTION_SETTING[option], value, target);
}
