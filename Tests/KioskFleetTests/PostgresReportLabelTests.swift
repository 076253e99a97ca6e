import Testing

@testable import KioskFleet

/// The report's source label goes into the page: the database's name, no secret and nothing
/// that says where the server is or who logs in.
@Suite struct PostgresReportLabelTests {
    @Test func theLabelNamesTheDatabaseOnly() {
        for conninfo in [
            "postgresql://op:s3cret@db.example.org:6432/fleet?sslmode=verify-full&sslrootcert=/etc/ssl/fleet-ca.pem",
            "host=db.example.org port=6432 user=op password=s3cret dbname=fleet sslrootcert=/etc/ssl/fleet-ca.pem",
            "postgresql://op@db.example.org/fleet?password=s3cret&sslmode=require",
        ] {
            let label = PostgresReportReader.label(conninfo: conninfo)
            #expect(label == "PostgreSQL database 'fleet'", "\(label)")
            for secret in ["s3cret", "db.example.org", "6432", "op@", "fleet-ca"] {
                #expect(!label.contains(secret), "\(label)")
            }
        }
    }
}
