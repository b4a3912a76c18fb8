import ArgumentParser

@main
struct Groupie: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "groupie",
        abstract: "The Groupie server: collaborative photo missions for museum visitors.",
        subcommands: [Serve.self, Migrate.self, Backup.self, Restore.self, Doctor.self, Export.self, Import.self, Missions.self, Collage.self, Staff.self]
    )
}
