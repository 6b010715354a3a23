package api

import "github.com/starkgraph/starkgraph/api/playground"

// playgroundTabs are the documents the playground opens with: the first shows what the API
// is about (blocks with their transactions; a token with its top holders and what each
// holder holds), the others one linked path each. A test validates them against the schema.
var playgroundTabs = []playground.Tab{
	{Name: "Overview", Query: `# starkgraph: the Starknet chain as linked data. Press ▶ (Ctrl-Enter) to run.
# The explorer (left, compass icon) builds documents by clicking; Docs lists every field.
query Overview {
  blocks(first: 3) {
    edges {
      node {
        number
        hash
        timestamp
        txnCount
        transactions(first: 3) {
          edges { node { hash type senderAddress actualFee actualFeeUnit } }
        }
      }
    }
  }
  tokens(first: 1, orderBy: HOLDERS) {
    edges {
      node {
        symbol
        name
        decimals
        holderCount
        holders(first: 5) {
          edges {
            node {
              ownerAddress
              balance
              owner {
                type
                class { hash isAccount }
                tokensHeld { balance token { symbol } }
              }
            }
          }
        }
      }
    }
  }
}
`},
	{Name: "Contracts", Query: `# Contracts -> the tokens they hold -> their class (and its verification).
query Contracts {
  contracts(first: 5) {
    totalCount
    edges {
      node {
        address
        type
        creationTimestamp
        tokensHeld { balance token { symbol decimals } }
        class { hash version isAccount alias verified { verifiedName license } }
      }
    }
  }
}
`},
	{Name: "Staking", Query: `# Validators -> their pools -> the delegators of each pool.
query Staking {
  stakingOverview { totalStakeStrk }
  validators(first: 5) {
    edges {
      node {
        address
        name
        totalStakeStrk
        revenueShare
        pools {
          address
          token { symbol }
          totalDelegated
          delegatorCount
          delegations(first: 3) { edges { node { delegatorAddress amount status } } }
        }
      }
    }
  }
}
`},
	{Name: "Decoded transaction", Query: `# A transaction with its calls decoded by the callee's ABI, and its events.
query DecodedTransaction {
  transactions(first: 1, filter: { type: INVOKE }) {
    edges {
      node {
        hash
        status
        sender { address alias }
        calls { contractAddress entrypoint inputs contract { token { symbol } } }
        events(first: 5) { edges { node { fromAddress keys data } } }
      }
    }
  }
}
`},
	{Name: "Live blocks", Query: `# Blocks as the indexer writes them, their status changes and reorgs, over a
# WebSocket (graphql-transport-ws). Press ▶ and watch; press ■ to stop.
subscription LiveBlocks {
  newBlocks {
    kind
    block { number hash status txnCount }
    reorg { ancestor depth oldHashes newHashes }
  }
}
`},
}
