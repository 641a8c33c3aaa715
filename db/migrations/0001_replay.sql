CREATE TABLE "replay_ranges" (
	"chain_id" integer NOT NULL,
	"from_block" bigint NOT NULL,
	"to_block" bigint NOT NULL,
	"finished_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "replay_ranges_chain_id_from_block_to_block_pk" PRIMARY KEY("chain_id","from_block","to_block")
);
