// Starts GraphiQL on the starkgraph API. The page passes its settings in the data-config
// attribute of #graphiql (endpoint, headers, example tabs), so that no inline script is
// needed and the page's Content-Security-Policy can allow this server's files only.
(function () {
  'use strict';
  var root = document.getElementById('graphiql');
  var config = JSON.parse(root.getAttribute('data-config'));
  var url = location.protocol + '//' + location.host + config.endpoint;
  // Subscriptions go over a WebSocket on the same path (graphql-transport-ws); the headers
  // tab's x-api-key travels in connection_init, as a browser cannot set WebSocket headers.
  var subscriptionUrl = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + config.endpoint;
  var fetcher = GraphiQL.createFetcher({
    url: url,
    subscriptionUrl: subscriptionUrl,
    headers: config.fetcherHeaders || {},
    wsConnectionParams: config.fetcherHeaders || {},
  });
  var tabs = config.tabs.map(function (tab) {
    return { query: tab.query, variables: tab.variables || undefined, headers: config.headers };
  });
  var plugins = [GraphiQLPluginExplorer.explorerPlugin()];
  ReactDOM.createRoot(root).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultTabs: tabs,
      defaultHeaders: config.headers,
      isHeadersEditorEnabled: true,
      shouldPersistHeaders: false,
      defaultEditorToolsVisibility: 'headers',
      plugins: plugins,
      inputValueDeprecation: true,
    }),
  );
})();
