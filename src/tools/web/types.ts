/** A search hit as `web_search` shows it. */
export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

/** Where `web_search` and `web_fetch` get their results: a local folder (offline) or a real search API. */
export interface WebBackend {
  readonly name: string;
  search(query: string, maxResults: number): Promise<SearchHit[]>;
  /** The page's text. Throws a plain Error whose message is the observation when it cannot. */
  fetch(url: string): Promise<string>;
}
