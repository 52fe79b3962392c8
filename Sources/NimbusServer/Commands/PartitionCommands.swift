import NimbusCore
import NimbusProtocol
import NimbusSupport

/// partition, listpartitions, newpartition, delpartition, moveoutput: each partition has its
/// own queue, player, options and outputs; a client works on one at a time.
@CoreActor
enum PartitionCommands {
    nonisolated static let all: [Command] = [
        Command("partition", .read, arguments: 1...1, handler: switchPartition),
        Command("listpartitions", .read, arguments: 0...0, handler: listpartitions),
        Command("newpartition", .admin, arguments: 1...1, handler: newPartition),
        Command("delpartition", .admin, arguments: 1...1, handler: deletePartition),
        Command("moveoutput", .admin, arguments: 1...1, handler: moveOutput),
    ]

    static func switchPartition(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        guard let partition = call.context.partitions.named(call[0]) else {
            throw ProtocolError(.noExist, "partition does not exist")
        }
        guard partition !== call.session.partition else { return .ok }
        call.session.partition = partition
        // MPD's SetPartition: the partition's own subsystems count as changed, so the
        // client's next idle has it reload them (nothing wakes now: the client is busy).
        call.session.addIdle([.playlist, .player, .mixer, .output, .options])
        return .ok
    }

    /// MPD's partition names: letters, digits, `-` and `_`.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    static func newPartition(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let name = call[0]
        guard isValidName(name) else { throw ProtocolError.argument("bad name") }
        guard call.context.partitions.named(name) == nil else { throw ProtocolError(.exist, "name already exists") }
        call.context.partitions.add(named: name)
        call.context.idle.emit(.partition)
        return .ok
    }

    static func deletePartition(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        guard let partition = call.context.partitions.named(call[0]) else {
            throw ProtocolError(.noExist, "no such partition")
        }
        guard partition !== call.context.partitions.defaultPartition else {
            throw ProtocolError(.unknown, "cannot delete the default partition")
        }
        guard !call.context.isInUse(partition) else {
            throw ProtocolError(.unknown, "partition still has clients")
        }
        guard !partition.outputs.hasRealOutputs else { throw ProtocolError(.unknown, "partition still has outputs") }
        call.context.partitions.remove(partition)
        call.context.idle.emit(.partition)
        return .ok
    }

    static func moveOutput(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        let target = call.session.partition
        let found = call.context.partitions.all.lazy.compactMap { partition in
            partition.outputs.all.first { $0.name == call[0] && !$0.isPlaceholder }.map { (partition, $0) }
        }.first
        guard let (source, output) = found else { throw ProtocolError(.noExist, "No such output") }
        guard source !== target else { return .ok }
        source.outputs.release(output)
        target.outputs.adopt(output)
        call.context.idle.emit(.output)
        return .ok
    }

    static func listpartitions(_ call: CommandCall, _ out: inout ResponseWriter) throws -> CommandResult {
        for partition in call.context.partitions.all { out.field("partition", partition.name) }
        return .ok
    }

}
