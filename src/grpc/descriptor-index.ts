/**
 * The API's protos as server reflection describes them: the serialized FileDescriptorProtos that
 * proto-loader puts on each definition (`fileDescriptorProtos`), decoded once and put right.
 * protobufjs writes one file per package, named after it (`mcp_host_v1.proto`) and without its
 * imports; reflection clients (grpcurl) resolve types through the imports, by file name. So each
 * file is renamed to the proto it came from (`mcp_host/v1/host.proto`), the well-known types of
 * `google.protobuf` are split back into their own files (`google/protobuf/struct.proto`,
 * `google/protobuf/timestamp.proto`), each file's `dependency` list names the files whose
 * types it uses, and type references are made fully qualified (`.mcp_host.v1.Env`).
 */
import { loadSync, type MessageTypeDefinition, type PackageDefinition } from '@grpc/proto-loader';

interface EnumDescriptor {
  name?: string;
}
interface FieldDescriptor {
  typeName?: string;
}
interface MessageDescriptor {
  name?: string;
  field?: FieldDescriptor[];
  nestedType?: MessageDescriptor[];
  enumType?: EnumDescriptor[];
}
interface MethodDescriptor {
  name?: string;
  inputType?: string;
  outputType?: string;
}
interface ServiceDescriptor {
  name?: string;
  method?: MethodDescriptor[];
}
interface FileDescriptor {
  name?: string;
  package?: string;
  dependency?: string[];
  messageType?: MessageDescriptor[];
  enumType?: EnumDescriptor[];
  service?: ServiceDescriptor[];
  [key: string]: unknown;
}

/** The proto file each of the API's packages was written in (others: the package as a path). */
const FILE_OF_PACKAGE: Readonly<Record<string, string>> = {
  'mcp_host.v1': 'mcp_host/v1/host.proto',
  'grpc.health.v1': 'grpc/health/v1/health.proto',
  'grpc.reflection.v1': 'grpc/reflection/v1/reflection.proto',
};

/** Well-known types not in the file named after them (`Timestamp`: `timestamp.proto`). */
const GOOGLE_FILE_OF: Readonly<Record<string, string>> = {
  Value: 'struct',
  ListValue: 'struct',
  NullValue: 'struct',
  DoubleValue: 'wrappers',
  FloatValue: 'wrappers',
  Int64Value: 'wrappers',
  UInt64Value: 'wrappers',
  Int32Value: 'wrappers',
  UInt32Value: 'wrappers',
  BoolValue: 'wrappers',
  StringValue: 'wrappers',
  BytesValue: 'wrappers',
};

interface IndexedFile {
  descriptor: FileDescriptor;
  /** Each field's or method's type reference (`holder[key]`), with the scope it is written in. */
  references: { scope: string; holder: Record<string, unknown>; key: string }[];
  bytes?: Buffer;
}

/** What reflection answers from: the files, who defines which symbol, the services. */
export class DescriptorIndex {
  readonly #files = new Map<string, IndexedFile>();
  readonly #fileOfSymbol = new Map<string, string>();
  readonly #services: string[] = [];

  constructor(definition: PackageDefinition) {
    const codec = fileDescriptorCodec();
    const seen = new Set<string>();
    for (const entry of Object.values(definition)) {
      for (const bytes of (entry as Partial<MessageTypeDefinition<object, object>>)
        .fileDescriptorProtos ?? []) {
        const key = Buffer.from(bytes).toString('base64');
        if (seen.has(key)) continue;
        seen.add(key);
        for (const file of split(codec.deserialize(Buffer.from(bytes)) as FileDescriptor))
          this.#add(file);
      }
    }
    for (const [name, file] of this.#files) {
      const dependencies = new Set<string>();
      for (const { scope, holder, key } of file.references) {
        const symbol = this.#resolve(scope, holder[key] as string);
        if (symbol === undefined) continue;
        // Fully qualified, as protoc writes them: not every client resolves a relative name.
        holder[key] = `.${symbol}`;
        const owner = this.#fileOfSymbol.get(symbol)!;
        if (owner !== name) dependencies.add(owner);
      }
      file.descriptor.dependency = [...dependencies].sort();
      file.bytes = codec.serialize(file.descriptor);
    }
    this.#services.sort();
  }

  /** The fully-qualified names of the services described, sorted. */
  get services(): readonly string[] {
    return this.#services;
  }

  /** The file defining `symbol` (a service, method, message or enum) and all it depends on. */
  fileContainingSymbol(symbol: string): Buffer[] | undefined {
    const name = this.#fileOfSymbol.get(symbol.replace(/^\./, ''));
    return name === undefined ? undefined : this.#withDependencies(name);
  }

  /** The file of this name and all it depends on. */
  fileByName(name: string): Buffer[] | undefined {
    return this.#files.has(name) ? this.#withDependencies(name) : undefined;
  }

  #withDependencies(name: string): Buffer[] {
    const order: string[] = [];
    const visit = (file: string) => {
      if (order.includes(file)) return;
      order.push(file);
      for (const dependency of this.#files.get(file)?.descriptor.dependency ?? [])
        visit(dependency);
    };
    visit(name);
    return order.map((file) => this.#files.get(file)!.bytes!);
  }

  #add(descriptor: FileDescriptor): void {
    const name = descriptor.name!;
    const prefix = descriptor.package === undefined ? '' : `${descriptor.package}.`;
    const references: IndexedFile['references'] = [];
    const define = (symbol: string) => this.#fileOfSymbol.set(symbol, name);
    const addMessage = (message: MessageDescriptor, scope: string) => {
      const full = `${scope}${message.name ?? ''}`;
      define(full);
      for (const field of message.field ?? [])
        if (field.typeName !== undefined)
          references.push({
            scope: full,
            holder: field as Record<string, unknown>,
            key: 'typeName',
          });
      for (const nested of message.nestedType ?? []) addMessage(nested, `${full}.`);
      for (const nested of message.enumType ?? []) define(`${full}.${nested.name ?? ''}`);
    };
    for (const message of descriptor.messageType ?? []) addMessage(message, prefix);
    for (const enumType of descriptor.enumType ?? []) define(`${prefix}${enumType.name ?? ''}`);
    for (const service of descriptor.service ?? []) {
      const full = `${prefix}${service.name ?? ''}`;
      define(full);
      this.#services.push(full);
      for (const method of service.method ?? []) {
        define(`${full}.${method.name ?? ''}`);
        for (const key of ['inputType', 'outputType'] as const)
          if (method[key] !== undefined)
            references.push({ scope: full, holder: method as Record<string, unknown>, key });
      }
    }
    this.#files.set(name, { descriptor, references });
  }

  /** The full name of a type reference, resolved as protoc does (innermost scope first). */
  #resolve(scope: string, typeName: string): string | undefined {
    if (typeName.startsWith('.'))
      return this.#fileOfSymbol.has(typeName.slice(1)) ? typeName.slice(1) : undefined;
    let within = scope;
    for (;;) {
      const candidate = within === '' ? typeName : `${within}.${typeName}`;
      if (this.#fileOfSymbol.has(candidate)) return candidate;
      if (within === '') return undefined;
      const dot = within.lastIndexOf('.');
      within = dot < 0 ? '' : within.slice(0, dot);
    }
  }
}

/** A file as protobufjs wrote it, as the files it came from. */
function split(file: FileDescriptor): FileDescriptor[] {
  const pkg = file.package ?? '';
  if (pkg !== 'google.protobuf')
    return [{ ...file, name: FILE_OF_PACKAGE[pkg] ?? `${pkg.replaceAll('.', '/')}.proto` }];
  const files = new Map<string, FileDescriptor>();
  const fileFor = (type: string) => {
    const name = `google/protobuf/${GOOGLE_FILE_OF[type] ?? snakeCase(type)}.proto`;
    let part = files.get(name);
    if (part === undefined) {
      part = { ...file, name, messageType: [], enumType: [], service: [] };
      files.set(name, part);
    }
    return part;
  };
  for (const message of file.messageType ?? [])
    fileFor(message.name ?? '').messageType!.push(message);
  for (const enumType of file.enumType ?? []) fileFor(enumType.name ?? '').enumType!.push(enumType);
  for (const service of file.service ?? []) fileFor(service.name ?? '').service!.push(service);
  return [...files.values()];
}

function snakeCase(name: string): string {
  return name.replace(/(?<=[a-z0-9])([A-Z])/g, '_$1').toLowerCase();
}

let codec: MessageTypeDefinition<object, object> | undefined;

/** `google.protobuf.FileDescriptorProto`, from the descriptor proto proto-loader carries. */
function fileDescriptorCodec(): MessageTypeDefinition<object, object> {
  codec ??= loadSync('google/protobuf/descriptor.proto', {
    longs: String,
    enums: String,
    defaults: false,
    oneofs: true,
  })['google.protobuf.FileDescriptorProto'] as MessageTypeDefinition<object, object>;
  return codec;
}
