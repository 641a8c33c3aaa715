/**
 * The API's types, generated from its OpenAPI document by `npm run generate:api-types`
 * (scripts/api-types.ts, openapi-typescript). Do not edit: regenerate. A test fails when this
 * file no longer matches the document. web/src/api.ts names the shapes the app reads.
 */

export interface paths {
    "/api/auth/signup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create an account (plan FREE) */
        post: operations["postApiAuthSignup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/signin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign in: a JWT (HS256) for the Bearer header */
        post: operations["postApiAuthSignin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The signed-in user with plan state (JWT) */
        get: operations["getApiAuthMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/generate-api-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Generate a PRO API key (JWT, PRO); the previous active key is revoked */
        post: operations["postApiAuthGenerateApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's active API keys, masked (JWT) */
        get: operations["getApiAuthApiKeys"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/api-keys/{apiKey}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke an active key of the caller, named in full or masked as listed (JWT) */
        delete: operations["deleteApiAuthApiKeysApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/pro/tokens/{address}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The complete token object (PRO key)
         * @description History: at most 100 snapshots, most recent first. Parts the analysis stages have not filled yet are null.
         */
        get: operations["getApiProTokensAddress"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/pro/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Tokens with filters, offset pagination and field selection (PRO key)
         * @description Newest first. Without `fields`, each token carries the summary fields; `fields` selects among every field of the complete object.
         */
        get: operations["getApiProTokens"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/pro/tokens/bulk": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Up to 50 complete token objects in one call (PRO key)
         * @description Unknown tokens are left out of `tokens` and listed in `metadata.not_found`; duplicates are answered once. More than 50 entries: 400. History: at most 50 snapshots per token.
         */
        post: operations["postApiProTokensBulk"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/pro/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every token the PRO list filters match, streamed as NDJSON or CSV (PRO key)
         * @description Newest first. One request against the key's limits, however many rows. NDJSON: one export record per line (with token_history when asked). CSV: a header line, then one line per token, or per snapshot with include_history=true.
         */
        get: operations["getApiProExport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Tokens, newest first, with filters (risk fields and filters: BASIC or PRO)
         * @description `total`: exact when at most 1000 tokens match; above that, the planner's estimate (always more than 1000). A full page in the default order carries the header `X-Next-Cursor`: pass it as `cursor` for the next page (keyset pagination, as fast at any depth as the first page).
         */
        get: operations["getApiTokens"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/tokens/{address}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** General detail view of a token (risk fields: BASIC or PRO) */
        get: operations["getApiTokensAddress"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/tokens/{address}/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run a token through the pipeline now (BASIC or PRO); an unknown contract is probed and, if a token, recorded
         * @description One refresh per token every 10 s, whoever asks. A known token restarts at the bytecode stage; an unknown address with code that answers the ERC-20 probe is recorded (detection_source "submitted", creation data null) and runs through every stage.
         */
        post: operations["postApiTokensAddressRefresh"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/creators": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Token creators and their reputation (BASIC or PRO) */
        get: operations["getApiCreators"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/creators/{address}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One creator with its tokens, newest first (BASIC or PRO) */
        get: operations["getApiCreatorsAddress"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/watchlist": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The tokens the caller watches, newest first (BASIC or PRO) */
        get: operations["getApiWatchlist"];
        put?: never;
        /** Watch a token (BASIC or PRO) */
        post: operations["postApiWatchlist"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/watchlist/{address}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Stop watching a token (BASIC or PRO) */
        delete: operations["deleteApiWatchlistAddress"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/preferences": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Alert preferences (BASIC or PRO) */
        get: operations["getApiPreferences"];
        /** Switch email alerts on or off and choose the alert kinds (BASIC or PRO) */
        put: operations["putApiPreferences"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/billing": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The plans on sale with their prices, and the caller’s subscription (JWT) */
        get: operations["getApiBilling"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/billing/checkout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Open a Checkout session for a plan and period (JWT); the browser goes to checkout_url
         * @description The first subscription of an account starts with a 7-day trial. The plan changes when the processor’s webhook says the subscription started, not here.
         */
        post: operations["postApiBillingCheckout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/billing/portal": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Open the billing portal: invoices, card, cancel, switch period (JWT) */
        post: operations["postApiBillingPortal"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/billing/webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The payment processor’s webhook (Stripe-Signature verified on the raw body)
         * @description Refused with 400 when unsigned, wrongly signed or signed more than 5 minutes ago. Handled once per event id: a second delivery answers `duplicate: true` and changes nothing. Failed signatures count against the client address like failed logins.
         */
        post: operations["postApiBillingWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description Every error answer: `{"error": "<message>"}`. */
        Error: {
            error: string;
        };
        /** @description One WebSocket message (docs/websocket.md). */
        LiveEvent: {
            id: string;
            /** @constant */
            type: "token.created";
            /** Format: date-time */
            ts: string;
            data: {
                /** @description lower-case 0x address */
                contract_address: string;
                chain_id: number;
                full_token_data: components["schemas"]["FullTokenData"];
                detection_source: string;
                /** Format: date-time */
                detected_at: string;
            };
        } | {
            id: string;
            /** @constant */
            type: "token.updated";
            /** Format: date-time */
            ts: string;
            data: {
                /** @description lower-case 0x address */
                contract_address: string;
                chain_id: number;
                /** @enum {string} */
                source: "risk" | "dex";
                changes: string[];
                full_token_data: components["schemas"]["FullTokenData"];
                current_risk_level: components["schemas"]["RiskLevel"] | null;
                current_risk_score: number | null;
                is_honeypot: boolean | null;
                current_liquidity_usd: number | null;
                is_actively_traded: boolean;
                price_usd: number | null;
                market_cap_usd: number | null;
                volume_24h_usd: number | null;
                security_hints: components["schemas"]["SecurityHintsCore"];
                trading_simulation: components["schemas"]["TradingSimulation"] | null;
                dex_hints: components["schemas"]["DexHints"] | null;
                holders: components["schemas"]["Holders"] | null;
                lp_holders: components["schemas"]["LpHolders"][];
                holder_sells: components["schemas"]["HolderSells"] | null;
                impersonates: components["schemas"]["Impersonates"] | null;
                previous: {
                    current_risk_score: number | null;
                    current_risk_level: components["schemas"]["RiskLevel"] | null;
                    current_liquidity_usd: number | null;
                    price_usd: number | null;
                };
                /** Format: date-time */
                last_updated: string;
            };
        } | {
            id: string;
            /** @constant */
            type: "alert";
            /** Format: date-time */
            ts: string;
            data: {
                /** @description lower-case 0x address */
                contract_address: string;
                chain_id: number;
                /** @enum {string} */
                type: "honeypot" | "liquidity_pull" | "rug" | "owner_changed" | "tax_raised" | "mint_after_launch" | "risk_level_changed" | "holder_concentration" | "impersonation";
                message: string;
                alert_key: string | null;
                bucket_at: string | null;
                details: {
                    [key: string]: string | number | boolean | null;
                };
            };
        } | {
            id: string;
            /** @constant */
            type: "token.removed";
            /** Format: date-time */
            ts: string;
            data: {
                /** @description lower-case 0x address */
                contract_address: string;
                chain_id: number;
                reason: string;
            };
        };
        /** @description null where the node could not tell (a token submitted long after its deployment) */
        FullTokenData: {
            token: {
                name: string | null;
                symbol: string | null;
                decimals: number | null;
                /** @description integer amount in smallest units */
                total_supply: string | null;
            };
            /** @description creation block time, Unix seconds */
            block_timestamp: number | null;
            creation: {
                block_timestamp: number | null;
                tx_hash: string | null;
                creator: string | null;
                creator_is_contract: boolean | null;
                block_number: number | null;
                gas_used: number | null;
                bytecode_hash: string | null;
                code_len: number | null;
                proxy_like: boolean | null;
            };
            born_block: number | null;
        };
        /** @enum {string} */
        RiskLevel: "low" | "medium" | "high" | "honeypot";
        SecurityHintsCore: {
            contract_template: string | null;
            /** @description score of the latest risk analysis */
            security_risk_score: number | null;
            ownership_renounced: boolean | null;
            /** @description true only where a configured block explorer reports verified source */
            verified_contract: boolean;
            has_pause_function: boolean | null;
            has_blacklist_function: boolean | null;
            has_mint_function: boolean | null;
            is_proxy: boolean | null;
            fee_modifiable: boolean | null;
            has_max_tx_limit: boolean | null;
            trading_restricted: boolean | null;
            owner_can_change_balance: boolean | null;
            hidden_owner: boolean | null;
            owner_address: string | null;
            creator_reputation_score: number | null;
            liquidity_lock: {
                locked_pct: number | null;
                burned_pct: number | null;
                lockers: {
                    name: string;
                    /** @description lower-case 0x address */
                    address: string;
                    /** @description lower-case 0x address */
                    pair_address: string;
                    locked_pct: number;
                }[];
            } | null;
            /** @description reachable SELFDESTRUCT in the code (and who can reach it: the factors) */
            selfdestruct: boolean | null;
            /** @description the owner can set a contract that transfers call */
            external_call: boolean | null;
            /** @description verified source on the configured explorer; null without one */
            is_open_source: boolean | null;
        };
        TradingSimulation: {
            is_buyable: boolean | null;
            is_sellable: boolean | null;
            buy_tax_pct: number | null;
            sell_tax_pct: number | null;
            transfer_tax_pct: number | null;
            max_tx_amount: string | null;
            simulated_at: string | null;
            error: string | null;
            /** @description the simulated Uniswap V4 pool's hook: permission bits, problems, owner control, what it did */
            hook: {
                /** @description lower-case 0x address */
                address: string;
                pool_id: string;
                flags: string;
                permissions: string[];
                problems: string[];
                can_change_swaps: boolean | null;
                findings: string[];
            } | null;
        };
        DexHints: {
            is_tradable: boolean | null;
            has_liquidity: boolean | null;
            has_v3_liquidity: boolean | null;
            has_v4_liquidity: boolean | null;
            total_liquidity_usd: number | null;
            token_price_usd: number | null;
            buy_url: string | null;
            num_trading_pairs: number | null;
            main_trading_pair: (string) | null;
            trading_pairs: {
                dex: string;
                /** @description a pool address, or a Uniswap V4 pool id (32 bytes) */
                pair_address: string;
                /** @description lower-case 0x address */
                quote_token: string;
                liquidity_usd: number | null;
                price_usd: number | null;
                pool_id: string | null;
                hook_address: string | null;
            }[];
            recommended_dex: string | null;
            volume_24h_usd: number | null;
        };
        Holders: {
            holder_count: number;
            top_holders: {
                /** @description lower-case 0x address */
                address: string;
                /** @description integer amount in smallest units */
                balance: string;
                /** @description share of the tracked supply, percent */
                percent: number;
                /** @description null: not asked yet */
                is_contract: boolean | null;
                tag: ("pair" | "locker" | "burn" | "token" | "creator" | "owner") | null;
            }[];
            creator_percent: number | null;
            owner_percent: number | null;
            contract_percent: number;
            burned_percent: number;
            pools_percent: number;
            top10_outside_pools_percent: number;
            /** @description the block the balances are at */
            block: number | null;
            /** @description tracked from the creation block */
            complete: boolean;
        };
        LpHolders: {
            /** @description lower-case 0x address */
            pair_address: string;
            dex: string;
            holder_count: number;
            locked_percent: number;
            burned_percent: number;
            creator_percent: number;
            other_percent: number;
            top_holders: {
                /** @description lower-case 0x address */
                address: string;
                /** @description integer amount in smallest units */
                balance: string;
                /** @description share of the tracked supply, percent */
                percent: number;
                /** @description null: not asked yet */
                is_contract: boolean | null;
                tag: ("pair" | "locker" | "burn" | "token" | "creator" | "owner") | null;
            }[];
        };
        HolderSells: {
            tried: number;
            failed: number;
            average_tax_pct: number | null;
            max_tax_pct: number | null;
            block: number | null;
            failures: {
                /** @description lower-case 0x address */
                address: string;
                reason: string;
            }[];
            siphoned: {
                /** @description lower-case 0x address */
                address: string;
                tracked_balance: string;
                balance: string;
            }[];
        };
        Impersonates: {
            symbol: string;
            /** @description lower-case 0x address */
            canonical_address: string;
            /** @enum {string} */
            matched: "symbol" | "name";
        };
        /** @description `plan` is the effective plan now: an ended trial reads FREE before the scheduled job records it. */
        User: {
            id: number;
            email: string;
            /** @enum {string} */
            plan: "FREE" | "BASIC" | "PRO";
            /** @enum {string} */
            plan_state: "active" | "trialing" | "trial_expired" | "payment_failed" | "cancelled" | "downgraded";
            trial_ends_at: string | null;
            /** @description the paid plan ends then (cancelled at the end of its period); null: it renews */
            plan_ends_at: string | null;
            payment_failed_at: string | null;
            downgraded_at: string | null;
            features: {
                risk: boolean;
                watchlist: boolean;
                creators: boolean;
                pro_api: boolean;
                api_keys: boolean;
                ws_connections: number;
            };
            /** Format: date-time */
            created_at: string;
        };
        /** @description Shown once: only SHA-256 hashes of api_key and api_secret are stored. */
        ApiKeyCreated: {
            api_key: string;
            api_secret: string;
            /** @constant */
            plan: "pro";
            name: string;
            description: string;
            rate_limit: {
                requests_per_day: number;
                requests_per_hour: number;
                requests_per_minute: number;
            };
            features: ("complete_data_access" | "historical_data" | "bulk_operations" | "data_export")[];
            /** @constant */
            status: "active";
            /** Format: date-time */
            created_at: string;
            expires_at: string | null;
        };
        CompleteToken: {
            /** @description lower-case 0x address */
            contract_address: string;
            chain_id: number;
            full_token_data: components["schemas"]["FullTokenData"];
            security_hints: components["schemas"]["SecurityHints"];
            current_risk_level: components["schemas"]["RiskLevel"] | null;
            current_risk_score: number | null;
            current_liquidity_usd: number | null;
            is_actively_traded: boolean;
            dex_hints: components["schemas"]["DexHints"] | null;
            monitoring_recommendations: {
                risk_monitoring: string[];
                price_alerts: string[];
            };
            data_quality_score: number;
            /** @description with include_analyses=true (default); newest first */
            analyses?: components["schemas"]["Analysis"][];
            /** @description with include_history=true; newest first */
            token_history?: components["schemas"]["HistorySnapshot"][];
            /** Format: date-time */
            last_updated: string;
            trading_simulation: components["schemas"]["TradingSimulation"] | null;
            is_honeypot: boolean | null;
            holders: components["schemas"]["Holders"] | null;
            lp_holders: components["schemas"]["LpHolders"][];
            holder_sells: components["schemas"]["HolderSells"] | null;
            impersonates: components["schemas"]["Impersonates"] | null;
        };
        /** @description null: not analysed yet. Every true flag has its evidence in analyses[].risk_factor_details. */
        SecurityHints: {
            contract_template: string | null;
            /** @description score of the latest risk analysis */
            security_risk_score: number | null;
            ownership_renounced: boolean | null;
            /** @description true only where a configured block explorer reports verified source */
            verified_contract: boolean;
            has_pause_function: boolean | null;
            has_blacklist_function: boolean | null;
            has_mint_function: boolean | null;
            is_proxy: boolean | null;
            fee_modifiable: boolean | null;
            has_max_tx_limit: boolean | null;
            trading_restricted: boolean | null;
            owner_can_change_balance: boolean | null;
            hidden_owner: boolean | null;
            owner_address: string | null;
            creator_reputation_score: number | null;
            liquidity_lock: {
                locked_pct: number | null;
                burned_pct: number | null;
                lockers: {
                    name: string;
                    /** @description lower-case 0x address */
                    address: string;
                    /** @description lower-case 0x address */
                    pair_address: string;
                    locked_pct: number;
                }[];
            } | null;
            /** @description reachable SELFDESTRUCT in the code (and who can reach it: the factors) */
            selfdestruct: boolean | null;
            /** @description the owner can set a contract that transfers call */
            external_call: boolean | null;
            /** @description verified source on the configured explorer; null without one */
            is_open_source: boolean | null;
            /** @description with include_admin_functions=true (default) */
            admin_functions?: components["schemas"]["AdminFunction"][];
        };
        AdminFunction: {
            name: string;
            /** @description 4-byte selector, hex without 0x */
            selector: string;
            /** @enum {string} */
            access_control: "owner-only" | "role" | "none" | "unknown";
            /** @description 1 low, 2 medium, 3 high, 4 critical */
            risk_level: number;
            description: string;
        };
        Analysis: {
            /** Format: date-time */
            timestamp: string;
            risk_factors: string[];
            actionable_insights: string[];
            alerts: {
                type: string;
                message: string;
            }[];
            risk_score: number | null;
            risk_level: components["schemas"]["RiskLevel"] | null;
            risk_factor_details: {
                code: string;
                points: number;
                severity: string;
                message: string;
                evidence: {
                    kind: string;
                    detail: string;
                    selector?: string;
                }[];
                proof: components["schemas"]["FindingProof"];
            }[];
        };
        FindingProof: {
            /**
             * @description proven: an eth_call ran the power as its privileged caller and saw its effect; unconfirmed: it could not be run, or ran without its effect (less weight); observed: the finding is itself an execution (trade, sell, probe); not-executable: a fact no call can show
             * @enum {string}
             */
            status: "proven" | "unconfirmed" | "observed" | "not-executable";
            /** @description The call, its caller and what it showed, or why nothing could be shown */
            detail: string;
            /** @description Read before the call: total_supply, holder_balance (decimal), holder_transfer (moves/fails) */
            before?: {
                [key: string]: string;
            };
            /** @description The same, read after the call */
            after?: {
                [key: string]: string;
            };
        };
        HistorySnapshot: {
            /** Format: date-time */
            timestamp: string;
            risk_score: number | null;
            price_usd: number | null;
            liquidity_usd: number | null;
            volume_24h_usd: number | null;
            market_cap_usd: number | null;
        };
        /** @description Without `fields`: the summary fields (and token_history with include_history=true). */
        ProListItem: {
            /** @description lower-case 0x address */
            contract_address?: string;
            chain_id?: number;
            full_token_data?: components["schemas"]["FullTokenData"];
            security_hints?: components["schemas"]["SecurityHints"];
            current_risk_level?: components["schemas"]["RiskLevel"] | null;
            current_risk_score?: number | null;
            current_liquidity_usd?: number | null;
            is_actively_traded?: boolean;
            dex_hints?: components["schemas"]["DexHints"] | null;
            monitoring_recommendations?: {
                risk_monitoring: string[];
                price_alerts: string[];
            };
            data_quality_score?: number;
            /** @description with include_analyses=true (default); newest first */
            analyses?: components["schemas"]["Analysis"][];
            /** @description with include_history=true; newest first */
            token_history?: components["schemas"]["HistorySnapshot"][];
            /** Format: date-time */
            last_updated?: string;
            trading_simulation?: components["schemas"]["TradingSimulation"] | null;
            is_honeypot?: boolean | null;
            holders?: components["schemas"]["Holders"] | null;
            lp_holders?: components["schemas"]["LpHolders"][];
            holder_sells?: components["schemas"]["HolderSells"] | null;
            impersonates?: components["schemas"]["Impersonates"] | null;
        };
        TokenListItem: {
            /** @description lower-case 0x address */
            contract_address: string;
            chain_id: number;
            name: string | null;
            symbol: string | null;
            /** @description null for FREE callers, and before the risk stage */
            current_risk_score: number | null;
            /** @description null for FREE callers, and before the risk stage */
            current_risk_level: components["schemas"]["RiskLevel"] | null;
            current_liquidity_usd: number | null;
            is_actively_traded: boolean;
            /** Format: date-time */
            detected_at: string;
        };
        TokenDetail: {
            /** @description lower-case 0x address */
            contract_address: string;
            chain_id: number;
            name: string | null;
            symbol: string | null;
            /** @description null for FREE callers, and before the risk stage */
            current_risk_score: number | null;
            /** @description null for FREE callers, and before the risk stage */
            current_risk_level: components["schemas"]["RiskLevel"] | null;
            current_liquidity_usd: number | null;
            is_actively_traded: boolean;
            /** Format: date-time */
            detected_at: string;
            decimals: number | null;
            /** @description uint256 as a decimal string */
            total_supply: string | null;
            creator: string | null;
            creator_is_contract: boolean | null;
            tx_origin: string | null;
            creation_tx_hash: string | null;
            creation_block_number: number | null;
            creation_block_hash: string | null;
            creation_timestamp: string | null;
            creation_gas_used: number | null;
            detection_source: string;
            bytecode_hash: string | null;
            code_length: number | null;
            proxy_like: boolean | null;
            price_usd: number | null;
            market_cap_usd: number | null;
            initial_liquidity_usd: number | null;
            volume_24h_usd: number | null;
            analysis_stage: string;
            /** Format: date-time */
            last_updated: string;
            /** @description PRO: with top_holders; BASIC: the shares only; FREE: null */
            holders: (components["schemas"]["Holders"] | {
                holder_count: number;
                creator_percent: number | null;
                owner_percent: number | null;
                contract_percent: number;
                burned_percent: number;
                pools_percent: number;
                top10_outside_pools_percent: number;
                /** @description the block the balances are at */
                block: number | null;
                /** @description tracked from the creation block */
                complete: boolean;
            }) | null;
            /** @description PRO only (null for BASIC and FREE) */
            lp_holders: components["schemas"]["LpHolders"][] | null;
            /** @description PRO: with the failing and siphoned holders; BASIC: the counts and taxes; FREE: null */
            holder_sells: (components["schemas"]["HolderSells"] | {
                tried: number;
                failed: number;
                average_tax_pct: number | null;
                max_tax_pct: number | null;
                block: number | null;
            }) | null;
            /** @description null for FREE callers, and when none */
            impersonates: components["schemas"]["Impersonates"] | null;
        };
        Creator: {
            /** @description lower-case 0x address */
            address: string;
            chain_id: number;
            total_tokens: number;
            success_rate: number | null;
            scam_rate: number | null;
            reputation_score: number | null;
            /** Format: date-time */
            first_seen: string;
            /** Format: date-time */
            last_seen: string;
        };
        BillingOverview: {
            /** @description false: billing is not configured here; plans change by the operator */
            configured: boolean;
            plans: {
                /** @enum {string} */
                plan: "BASIC" | "PRO";
                /** @enum {string} */
                period: "monthly" | "annual";
                /** @description null while the processor cannot be asked */
                price: {
                    /** @description in the currency's smallest unit (cents) */
                    amount: number | null;
                    currency: string;
                    interval: string | null;
                } | null;
            }[];
            /** @description trial days a checkout would start with now (0: none, the account had one) */
            trial_days: number;
            /** @description whether "Manage billing" (the portal) is available */
            has_billing_account: boolean;
            subscription: {
                status: string;
                plan: ("BASIC" | "PRO") | null;
                period: ("monthly" | "annual") | null;
                current_period_end: string | null;
                cancel_at: string | null;
            } | null;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    postApiAuthSignup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: email */
                    email: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        user: components["schemas"]["User"];
                    };
                };
            };
            /** @description Malformed path, query or body: the message names the field and why. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Email already registered` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Too many attempts from this address */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postApiAuthSignin: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    email: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description Signed in */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        token: string;
                        /** @constant */
                        token_type: "Bearer";
                        expires_in: number;
                        user: {
                            id: number;
                            email: string;
                            /** @enum {string} */
                            plan: "FREE" | "BASIC" | "PRO";
                            trial_ends_at: string | null;
                        };
                    };
                };
            };
            /** @description Malformed path, query or body: the message names the field and why. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Wrong email or password: `Unauthorized. Please log in again.` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Too many attempts from this address */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiAuthMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user */
            200: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            /** @description Missing, invalid, expired or revoked credential: `Unauthorized. Please log in again.` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Rate limit exceeded. Please try again later.` */
            429: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postApiAuthGenerateApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description "pro", the only plan supported
                     * @constant
                     */
                    plan?: "pro";
                    name?: string;
                    description?: string;
                    /** @description default: no expiry */
                    expires_in_days?: number;
                };
            };
        };
        responses: {
            /** @description The new key; api_key and api_secret are shown this once */
            201: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyCreated"];
                };
            };
            /** @description Malformed path, query or body: the message names the field and why. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid, expired or revoked credential: `Unauthorized. Please log in again.` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PRO plan required` */
            403: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Rate limit exceeded. Please try again later.` */
            429: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiAuthApiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Active keys only */
            200: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        api_keys: {
                            /** @description masked */
                            api_key: string;
                            name: string;
                            /** @constant */
                            plan: "pro";
                            /** @constant */
                            status: "active";
                            /** Format: date-time */
                            created_at: string;
                            last_used: string | null;
                            usage_stats: {
                                requests_today: number;
                                requests_this_month: number;
                                total_requests: number;
                                last_used: string | null;
                            };
                        }[];
                        total: number;
                    };
                };
            };
            /** @description Missing, invalid, expired or revoked credential: `Unauthorized. Please log in again.` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Rate limit exceeded. Please try again later.` */
            429: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteApiAuthApiKeysApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked */
            200: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        api_key: string;
                        /** @constant */
                        status: "revoked";
                    };
                };
            };
            /** @description Malformed path, query or body: the message names the field and why. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid, expired or revoked credential: `Unauthorized. Please log in again.` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `API key not found`: the value names no active key of the caller */
            404: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Rate limit exceeded. Please try again later.` */
            429: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiProTokensAddress: {
        parameters: {
            query?: {
                /** @description default 56 */
                chain_id?: string;
                /** @description default true: token_history, up to 100 snapshots */
                include_history?: "true" | "false";
                /** @description default true */
                include_analyses?: "true" | "false";
                /** @description default true */
                include_admin_functions?: "true" | "false";
            };
            header?: never;
            path: {
                /** @description contract address, case-insensitive */
                address: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The token */
            200: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CompleteToken"];
                };
            };
            /** @description Malformed path, query or body: the message names the field and why. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid, expired or revoked credential: `Unauthorized. Please log in again.` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PRO plan required` */
            403: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Token not found` */
            404: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Rate limit exceeded. Please try again later.` */
            429: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiProTokens: {
        parameters: {
            query?: {
                /** @description comma-separated token addresses */
                addresses?: string;
                /** @description comma-separated chain ids */
                chain_ids?: string;
                /** @description minimum current liquidity in USD */
                min_liquidity?: string;
                /** @description maximum current risk score (higher = riskier) */
                max_risk_score?: string;
                /** @description default false: token_history, up to 50 snapshots per token */
                include_history?: "true" | "false";
                /** @description 1-100 (default 50) */
                limit?: string;
                /** @description tokens to skip (default 0) */
                offset?: string;
                /** @description comma-separated fields of the complete object; contract_address and chain_id are always included */
                fields?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of tokens */
            200: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        tokens: components["schemas"]["ProListItem"][];
                        pagination: {
                            total: number;
                            limit: number;
                            offset: number;
                            has_more: boolean;
                        };
                    };
                };
            };
            /** @description Malformed path, query or body: the message names the field and why. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid, expired or revoked credential: `Unauthorized. Please log in again.` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PRO plan required` */
            403: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Rate limit exceeded. Please try again later.` */
            429: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postApiProTokensBulk: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    tokens: {
                        address: string;
                        chain_id: number;
                    }[];
                    /**
                     * @description default true: up to 50 snapshots per token
                     * @default true
                     */
                    include_history?: boolean;
                    /** @default true */
                    include_analyses?: boolean;
                    /** @default true */
                    include_admin_functions?: boolean;
                };
            };
        };
        responses: {
            /** @description The tokens found */
            200: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        tokens: components["schemas"]["CompleteToken"][];
                        metadata: {
                            /** @description tokens returned */
                            total_tokens: number;
                            /** @description distinct tokens asked for */
                            requested: number;
                            processing_time_ms: number;
                            cache_hit_rate: number;
                            not_found: {
                                /** @description lower-case 0x address */
                                address: string;
                                chain_id: number;
                            }[];
                        };
                    };
                };
            };
            /** @description Malformed path, query or body: the message names the field and why. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid, expired or revoked credential: `Unauthorized. Please log in again.` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PRO plan required` */
            403: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Rate limit exceeded. Please try again later.` */
            429: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiProExport: {
        parameters: {
            query?: {
                /** @description ndjson (default) or csv */
                format?: "ndjson" | "csv";
                /** @description comma-separated token addresses */
                addresses?: string;
                /** @description comma-separated chain ids */
                chain_ids?: string;
                /** @description minimum current liquidity in USD */
                min_liquidity?: string;
                /** @description maximum current risk score (higher = riskier) */
                max_risk_score?: string;
                /** @description default false: up to 100 snapshots per token (CSV: one line per snapshot) */
                include_history?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The stream */
            200: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/x-ndjson": string;
                    "text/csv": string;
                };
            };
            /** @description Malformed path, query or body: the message names the field and why. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid, expired or revoked credential: `Unauthorized. Please log in again.` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PRO plan required` */
            403: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Rate limit exceeded. Please try again later.` */
            429: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiTokens: {
        parameters: {
            query?: {
                chain_id?: string;
                /** @description from 1 (default 1) */
                page?: string;
                /** @description 1-100 (default 20) */
                limit?: string;
                risk_level?: "low" | "medium" | "high" | "honeypot";
                min_risk_score?: string;
                max_risk_score?: string;
                /** @description true: risk level honeypot; false: anything else, unscored included */
                is_honeypot?: "true" | "false";
                min_liquidity_usd?: string;
                /** @description true: some liquidity now; false: none measured */
                has_liquidity?: "true" | "false";
                /** @description traded within the last 24 hours */
                is_actively_traded?: "true" | "false";
                /** @description creation time (or detection time when unknown) at or after */
                created_after?: string;
                /** @description creation time (or detection time when unknown) before */
                created_before?: string;
                /** @description case-insensitive substring of name or symbol, or a prefix of the address */
                q?: string;
                /** @description a field, descending with a leading "-" (default -detected_at); nulls last */
                sort?: "detected_at" | "-detected_at" | "current_risk_score" | "-current_risk_score" | "current_liquidity_usd" | "-current_liquidity_usd" | "name" | "-name" | "symbol" | "-symbol";
                /** @description keyset pagination in the default order: the X-Next-Cursor header of the previous page; the page after it, as fast at any depth (page must be 1, sort absent or -detected_at) */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of tokens */
            200: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["TokenListItem"][];
                        total: number;
                        page: number;
                        limit: number;
                    };
                };
            };
            /** @description Malformed path, query or body: the message names the field and why. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid, expired or revoked credential: `Unauthorized. Please log in again.` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `BASIC or PRO plan required` (FREE using a risk filter or sort) */
            403: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Rate limit exceeded. Please try again later.` */
            429: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiTokensAddress: {
        parameters: {
            query?: {
                /** @description without it: the most recently detected token with this address */
                chain_id?: string;
                /** @description complete (BASIC and PRO): the complete token object, history for PRO only; FREE always gets the general view */
                view?: "general" | "complete";
            };
            header?: never;
            path: {
                address: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The token; with view=complete (BASIC, PRO) the complete token object */
            200: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenDetail"] | components["schemas"]["CompleteToken"] | {
                        /** @description lower-case 0x address */
                        contract_address: string;
                        chain_id: number;
                        full_token_data: components["schemas"]["FullTokenData"];
                        security_hints: components["schemas"]["SecurityHints"];
                        current_risk_level: components["schemas"]["RiskLevel"] | null;
                        current_risk_score: number | null;
                        current_liquidity_usd: number | null;
                        is_actively_traded: boolean;
                        dex_hints: components["schemas"]["DexHints"] | null;
                        monitoring_recommendations: {
                            risk_monitoring: string[];
                            price_alerts: string[];
                        };
                        data_quality_score: number;
                        /** @description with include_analyses=true (default); newest first */
                        analyses?: components["schemas"]["Analysis"][];
                        /** Format: date-time */
                        last_updated: string;
                        trading_simulation: components["schemas"]["TradingSimulation"] | null;
                        is_honeypot: boolean | null;
                        holders: components["schemas"]["Holders"] | null;
                        lp_holders: components["schemas"]["LpHolders"][];
                        holder_sells: components["schemas"]["HolderSells"] | null;
                        impersonates: components["schemas"]["Impersonates"] | null;
                    };
                };
            };
            /** @description Malformed path, query or body: the message names the field and why. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid, expired or revoked credential: `Unauthorized. Please log in again.` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Token not found` */
            404: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Rate limit exceeded. Please try again later.` */
            429: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postApiTokensAddressRefresh: {
        parameters: {
            query: {
                chain_id: string;
            };
            header?: never;
            path: {
                address: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Queued */
            202: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "queued";
                    };
                };
            };
            /** @description Malformed path, query or body: the message names the field and why. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid, expired or revoked credential: `Unauthorized. Please log in again.` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `BASIC or PRO plan required` */
            403: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Token not found`: no code, or the code is no token */
            404: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Refresh cooldown active` (with Retry-After), or the rate limit */
            429: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiCreators: {
        parameters: {
            query?: {
                chain_id?: string;
                /** @description from 1 (default 1) */
                page?: string;
                /** @description 1-100 (default 20) */
                limit?: string;
                /** @description descending (default last_seen) */
                sort?: "last_seen" | "total_tokens" | "reputation_score";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of creators */
            200: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["Creator"][];
                        total: number;
                        page: number;
                        limit: number;
                    };
                };
            };
            /** @description Malformed path, query or body: the message names the field and why. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid, expired or revoked credential: `Unauthorized. Please log in again.` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `BASIC or PRO plan required` */
            403: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Rate limit exceeded. Please try again later.` */
            429: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiCreatorsAddress: {
        parameters: {
            query?: {
                /** @description without it: the chain of the creator's most recent activity */
                chain_id?: string;
            };
            header?: never;
            path: {
                address: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The creator */
            200: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description lower-case 0x address */
                        address: string;
                        chain_id: number;
                        total_tokens: number;
                        success_rate: number | null;
                        scam_rate: number | null;
                        reputation_score: number | null;
                        /** Format: date-time */
                        first_seen: string;
                        /** Format: date-time */
                        last_seen: string;
                        tokens: components["schemas"]["TokenListItem"][];
                    };
                };
            };
            /** @description Malformed path, query or body: the message names the field and why. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid, expired or revoked credential: `Unauthorized. Please log in again.` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `BASIC or PRO plan required` */
            403: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Creator not found` */
            404: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Rate limit exceeded. Please try again later.` */
            429: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiWatchlist: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The watchlist */
            200: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            /** @description lower-case 0x address */
                            contract_address: string;
                            chain_id: number;
                            /** Format: date-time */
                            added_at: string;
                            token: components["schemas"]["TokenListItem"] | null;
                        }[];
                        total: number;
                    };
                };
            };
            /** @description Missing, invalid, expired or revoked credential: `Unauthorized. Please log in again.` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `BASIC or PRO plan required` */
            403: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Rate limit exceeded. Please try again later.` */
            429: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postApiWatchlist: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    address: string;
                    chain_id: number;
                };
            };
        };
        responses: {
            /** @description Added */
            201: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description lower-case 0x address */
                        contract_address: string;
                        chain_id: number;
                        /** Format: date-time */
                        added_at: string;
                        token: components["schemas"]["TokenListItem"] | null;
                    };
                };
            };
            /** @description Malformed path, query or body: the message names the field and why. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid, expired or revoked credential: `Unauthorized. Please log in again.` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `BASIC or PRO plan required` */
            403: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Token not found` */
            404: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Token already in watchlist` */
            409: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Rate limit exceeded. Please try again later.` */
            429: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteApiWatchlistAddress: {
        parameters: {
            query?: {
                /** @description without it: the address on every chain */
                chain_id?: string;
            };
            header?: never;
            path: {
                address: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed */
            200: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description lower-case 0x address */
                        contract_address: string;
                        chain_ids: number[];
                    };
                };
            };
            /** @description Malformed path, query or body: the message names the field and why. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid, expired or revoked credential: `Unauthorized. Please log in again.` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `BASIC or PRO plan required` */
            403: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Token not in watchlist` */
            404: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Rate limit exceeded. Please try again later.` */
            429: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiPreferences: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The preferences */
            200: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        email_alerts: boolean;
                        /** @description the alert kinds the caller receives; all of them unless narrowed */
                        alert_kinds: ("honeypot" | "liquidity_pull" | "rug" | "owner_changed" | "tax_raised" | "mint_after_launch" | "risk_level_changed" | "holder_concentration" | "impersonation")[];
                    };
                };
            };
            /** @description Missing, invalid, expired or revoked credential: `Unauthorized. Please log in again.` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `BASIC or PRO plan required` */
            403: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Rate limit exceeded. Please try again later.` */
            429: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    putApiPreferences: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    email_alerts: boolean;
                    /** @description absent: unchanged */
                    alert_kinds?: ("honeypot" | "liquidity_pull" | "rug" | "owner_changed" | "tax_raised" | "mint_after_launch" | "risk_level_changed" | "holder_concentration" | "impersonation")[];
                };
            };
        };
        responses: {
            /** @description The preferences */
            200: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        email_alerts: boolean;
                        /** @description the alert kinds the caller receives; all of them unless narrowed */
                        alert_kinds: ("honeypot" | "liquidity_pull" | "rug" | "owner_changed" | "tax_raised" | "mint_after_launch" | "risk_level_changed" | "holder_concentration" | "impersonation")[];
                    };
                };
            };
            /** @description Malformed path, query or body: the message names the field and why. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid, expired or revoked credential: `Unauthorized. Please log in again.` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `BASIC or PRO plan required` */
            403: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Rate limit exceeded. Please try again later.` */
            429: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApiBilling: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The billing overview */
            200: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BillingOverview"];
                };
            };
            /** @description Missing, invalid, expired or revoked credential: `Unauthorized. Please log in again.` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Rate limit exceeded. Please try again later.` */
            429: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postApiBillingCheckout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description "basic" or "pro" */
                    plan: string;
                    /** @enum {string} */
                    period: "monthly" | "annual";
                };
            };
        };
        responses: {
            /** @description The Checkout session */
            201: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the processor's Checkout page: send the browser there */
                        checkout_url: string;
                        session_id: string;
                        trial_days: number;
                    };
                };
            };
            /** @description Malformed path, query or body: the message names the field and why. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid, expired or revoked credential: `Unauthorized. Please log in again.` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `A subscription is active: change or cancel it with Manage billing` */
            409: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Rate limit exceeded. Please try again later.` */
            429: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `The payment processor is unavailable. Please try again later.` */
            502: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Billing is not configured`; or Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postApiBillingPortal: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The portal session */
            201: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the processor's billing portal: send the browser there */
                        portal_url: string;
                    };
                };
            };
            /** @description Missing, invalid, expired or revoked credential: `Unauthorized. Please log in again.` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `No billing account yet: choose a plan first` */
            404: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Rate limit exceeded. Please try again later.` */
            429: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `The payment processor is unavailable. Please try again later.` */
            502: {
                headers: {
                    /** @description Limit of the tightest window (the one with the fewest requests left). */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in that window. */
                    "X-RateLimit-Remaining"?: number;
                    /** @description When that window resets, in Unix epoch seconds. */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Billing is not configured`; or Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postApiBillingWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description A Stripe event exactly as delivered: the signature covers these bytes. */
        requestBody: {
            content: {
                "application/json": string;
            };
        };
        responses: {
            /** @description Handled (or ignored, with the reason in `outcome`) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        received: true;
                        /** @description true: this event id was handled before; nothing changed now */
                        duplicate: boolean;
                        outcome: string;
                    };
                };
            };
            /** @description `Missing Stripe-Signature header`, `Invalid webhook signature: …`, or an event of an unknown shape */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Too many failed signatures from this address */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `Internal server error` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Billing is not configured`; or Postgres or Redis unreachable: `Service temporarily unavailable` */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
type FlattenedDeepRequired<T> = {
    [K in keyof T]-?: FlattenedDeepRequired<T[K] extends unknown[] | undefined | null ? Extract<T[K], unknown[]>[number] : T[K]>;
};
type ReadonlyArray<T> = [
    Exclude<T, undefined>
] extends [
    unknown[]
] ? Readonly<Exclude<T, undefined>> : Readonly<Exclude<T, undefined>[]>;
export const pathsApiAuthSigninPostResponses200ContentApplicationJsonUserPlanValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/auth/signin"]["post"]["responses"]["200"]["content"]["application/json"]["user"]["plan"]> = ["FREE", "BASIC", "PRO"];
export const pathsApiProTokensAddressGetParametersQueryInclude_historyValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/pro/tokens/{address}"]["get"]["parameters"]["query"]["include_history"]> = ["true", "false"];
export const pathsApiProTokensAddressGetParametersQueryInclude_analysesValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/pro/tokens/{address}"]["get"]["parameters"]["query"]["include_analyses"]> = ["true", "false"];
export const pathsApiProTokensAddressGetParametersQueryInclude_admin_functionsValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/pro/tokens/{address}"]["get"]["parameters"]["query"]["include_admin_functions"]> = ["true", "false"];
export const pathsApiProTokensGetParametersQueryInclude_historyValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/pro/tokens"]["get"]["parameters"]["query"]["include_history"]> = ["true", "false"];
export const pathsApiProExportGetParametersQueryFormatValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/pro/export"]["get"]["parameters"]["query"]["format"]> = ["ndjson", "csv"];
export const pathsApiProExportGetParametersQueryInclude_historyValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/pro/export"]["get"]["parameters"]["query"]["include_history"]> = ["true", "false"];
export const pathsApiTokensGetParametersQueryRisk_levelValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/tokens"]["get"]["parameters"]["query"]["risk_level"]> = ["low", "medium", "high", "honeypot"];
export const pathsApiTokensGetParametersQueryIs_honeypotValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/tokens"]["get"]["parameters"]["query"]["is_honeypot"]> = ["true", "false"];
export const pathsApiTokensGetParametersQueryHas_liquidityValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/tokens"]["get"]["parameters"]["query"]["has_liquidity"]> = ["true", "false"];
export const pathsApiTokensGetParametersQueryIs_actively_tradedValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/tokens"]["get"]["parameters"]["query"]["is_actively_traded"]> = ["true", "false"];
export const pathsApiTokensGetParametersQuerySortValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/tokens"]["get"]["parameters"]["query"]["sort"]> = ["detected_at", "-detected_at", "current_risk_score", "-current_risk_score", "current_liquidity_usd", "-current_liquidity_usd", "name", "-name", "symbol", "-symbol"];
export const pathsApiTokensAddressGetParametersQueryViewValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/tokens/{address}"]["get"]["parameters"]["query"]["view"]> = ["general", "complete"];
export const pathsApiCreatorsGetParametersQuerySortValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/creators"]["get"]["parameters"]["query"]["sort"]> = ["last_seen", "total_tokens", "reputation_score"];
export const pathsApiPreferencesGetResponses200ContentApplicationJsonAlert_kindsValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/preferences"]["get"]["responses"]["200"]["content"]["application/json"]["alert_kinds"]> = ["honeypot", "liquidity_pull", "rug", "owner_changed", "tax_raised", "mint_after_launch", "risk_level_changed", "holder_concentration", "impersonation"];
export const pathsApiPreferencesPutRequestBodyContentApplicationJsonAlert_kindsValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/preferences"]["put"]["requestBody"]["content"]["application/json"]["alert_kinds"]> = ["honeypot", "liquidity_pull", "rug", "owner_changed", "tax_raised", "mint_after_launch", "risk_level_changed", "holder_concentration", "impersonation"];
export const pathsApiPreferencesPutResponses200ContentApplicationJsonAlert_kindsValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/preferences"]["put"]["responses"]["200"]["content"]["application/json"]["alert_kinds"]> = ["honeypot", "liquidity_pull", "rug", "owner_changed", "tax_raised", "mint_after_launch", "risk_level_changed", "holder_concentration", "impersonation"];
export const pathsApiBillingCheckoutPostRequestBodyContentApplicationJsonPeriodValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/billing/checkout"]["post"]["requestBody"]["content"]["application/json"]["period"]> = ["monthly", "annual"];
export const liveEventOneOf1DataSourceValues: ReadonlyArray<Extract<Extract<FlattenedDeepRequired<components>["schemas"]["LiveEvent"], {
    data: unknown;
}>["data"], {
    source: unknown;
}>["source"]> = ["risk", "dex"];
export const liveEventOneOf2DataTypeValues: ReadonlyArray<Extract<Extract<FlattenedDeepRequired<components>["schemas"]["LiveEvent"], {
    data: unknown;
}>["data"], {
    type: unknown;
}>["type"]> = ["honeypot", "liquidity_pull", "rug", "owner_changed", "tax_raised", "mint_after_launch", "risk_level_changed", "holder_concentration", "impersonation"];
export const riskLevelValues: ReadonlyArray<FlattenedDeepRequired<components>["schemas"]["RiskLevel"]> = ["low", "medium", "high", "honeypot"];
export const holdersTop_holdersTagAnyOf0Values: ReadonlyArray<FlattenedDeepRequired<components>["schemas"]["Holders"]["top_holders"]["tag"]> = ["pair", "locker", "burn", "token", "creator", "owner"];
export const lpHoldersTop_holdersTagAnyOf0Values: ReadonlyArray<FlattenedDeepRequired<components>["schemas"]["LpHolders"]["top_holders"]["tag"]> = ["pair", "locker", "burn", "token", "creator", "owner"];
export const impersonatesMatchedValues: ReadonlyArray<FlattenedDeepRequired<components>["schemas"]["Impersonates"]["matched"]> = ["symbol", "name"];
export const userPlanValues: ReadonlyArray<FlattenedDeepRequired<components>["schemas"]["User"]["plan"]> = ["FREE", "BASIC", "PRO"];
export const userPlan_stateValues: ReadonlyArray<FlattenedDeepRequired<components>["schemas"]["User"]["plan_state"]> = ["active", "trialing", "trial_expired", "payment_failed", "cancelled", "downgraded"];
export const apiKeyCreatedFeaturesValues: ReadonlyArray<FlattenedDeepRequired<components>["schemas"]["ApiKeyCreated"]["features"]> = ["complete_data_access", "historical_data", "bulk_operations", "data_export"];
export const adminFunctionAccess_controlValues: ReadonlyArray<FlattenedDeepRequired<components>["schemas"]["AdminFunction"]["access_control"]> = ["owner-only", "role", "none", "unknown"];
export const findingProofStatusValues: ReadonlyArray<FlattenedDeepRequired<components>["schemas"]["FindingProof"]["status"]> = ["proven", "unconfirmed", "observed", "not-executable"];
export const billingOverviewPlansPlanValues: ReadonlyArray<FlattenedDeepRequired<components>["schemas"]["BillingOverview"]["plans"]["plan"]> = ["BASIC", "PRO"];
export const billingOverviewPlansPeriodValues: ReadonlyArray<FlattenedDeepRequired<components>["schemas"]["BillingOverview"]["plans"]["period"]> = ["monthly", "annual"];
export const billingOverviewSubscriptionAnyOf0PlanAnyOf0Values: ReadonlyArray<Extract<FlattenedDeepRequired<components>["schemas"]["BillingOverview"]["subscription"], {
    plan: unknown;
}>["plan"]> = ["BASIC", "PRO"];
export const billingOverviewSubscriptionAnyOf0PeriodAnyOf0Values: ReadonlyArray<Extract<FlattenedDeepRequired<components>["schemas"]["BillingOverview"]["subscription"], {
    period: unknown;
}>["period"]> = ["monthly", "annual"];
