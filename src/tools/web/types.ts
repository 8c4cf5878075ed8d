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
  /**
   * The page as served (markup kept, so `web_browser` can show its links), with its final URL
   * and content type. Throws like `fetch`. A backend without it gives `web_browser` the text of
   * `fetch`, without links.
   */
  page?(url: string): Promise<WebPage>;
}

/** A page as served: what `web_browser` renders in the sandbox. */
export interface WebPage {
  url: string;
  /** "text/html", "text/markdown", "text/plain", ... */
  contentType: string;
  body: string;
}
