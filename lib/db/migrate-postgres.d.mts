/** Applies the migrations in `migrationsFolder` to a Postgres server, under the migration lock. */
export declare function migratePostgres(url: string, migrationsFolder: string): Promise<void>;
