//! Service definitions: the methods of a service with their Java parameter and return types,
//! as a Java provider publishes them in a metadata report.
//!
//! A Dubbo provider with a metadata report (2.7 with `dubbo.metadata-report.address`, 3.x by
//! default when its registry is also its metadata centre) writes, per exported service, a
//! `FullServiceDefinition` as JSON:
//!
//! ```text
//! /<root>/metadata/<interface>[/<version>][/<group>]/provider/<application>
//! {"canonicalName": ..., "methods": [{"name", "parameterTypes", "returnType"}...],
//!  "types": [{"type", "items", "enums", "properties"}...], "parameters": {URL parameters}}
//! ```
//!
//! 2.7 (fastjson) writes a type's properties as nested type objects or as `{"$ref": path}` to
//! one written before, 3.x as type names; [`ServiceDefinition::from_json`] reads both as type
//! names.

use std::collections::BTreeMap;

use registry_urlweight::encode_component;
use serde::Deserialize;
use serde_json::{json, Value as Json};

use crate::error::RegistryError;

/// Which provider's definition: what Dubbo's `MetadataIdentifier` names (side `provider`).
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DefinitionKey {
    /// The interface.
    pub interface: String,
    /// Its version (`""`: none).
    pub version: String,
    /// Its group (`""`: none).
    pub group: String,
    /// The provider's application (`application` of its URL).
    pub application: String,
}

impl DefinitionKey {
    /// The node Dubbo's ZooKeeper metadata report writes it to under `root` (the registry's
    /// root, `dubbo` by default): `/<root>/metadata/<interface>[/<version>][/<group>]/provider/
    /// <application>`, the interface URL-encoded, empty parts left out, and (as Java's
    /// `PathUtils.buildPath`, which collects the parts in a set) a part equal to an earlier one
    /// left out too.
    pub fn report_path(&self, root: &str) -> String {
        let root = root.trim_matches('/');
        let interface = encode_component(&self.interface);
        let mut parts: Vec<&str> = Vec::new();
        for p in [
            root,
            "metadata",
            &interface,
            &self.version,
            &self.group,
            "provider",
            &self.application,
        ] {
            if !p.is_empty() && !parts.contains(&p) {
                parts.push(p);
            }
        }
        format!("/{}", parts.join("/"))
    }
}

/// One method: `org.apache.dubbo.metadata.definition.model.MethodDefinition`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MethodDefinition {
    /// The method name.
    pub name: String,
    /// The Java parameter types, generic arguments included
    /// (`java.util.Map<java.lang.String,java.lang.Object>`).
    #[serde(default)]
    pub parameter_types: Vec<String>,
    /// The Java return type (`void` for none).
    #[serde(default)]
    pub return_type: String,
}

/// One type a method uses: `TypeDefinition`, its property and item types as type names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TypeDefinition {
    /// The type (`io.github.hessianrs.demo.User`, `java.util.List<java.lang.String>`).
    pub type_name: String,
    /// Element types (of a collection, an array, a map's key and value).
    pub items: Vec<String>,
    /// An enum's constants.
    pub enums: Vec<String>,
    /// A class's fields and their types.
    pub properties: BTreeMap<String, String>,
}

/// A service's definition (`FullServiceDefinition`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServiceDefinition {
    /// The interface (`canonicalName`).
    pub canonical_name: String,
    /// The jar it came from, when Java knew.
    pub code_source: String,
    /// Its methods, in the provider's order.
    pub methods: Vec<MethodDefinition>,
    /// The types of the methods' parameters and results, and of their fields.
    pub types: Vec<TypeDefinition>,
    /// The provider URL's parameters at publication.
    pub parameters: BTreeMap<String, String>,
}

/// The JSON as Java writes it, types left as JSON (their shape differs between generations).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawDefinition {
    #[serde(default)]
    canonical_name: String,
    #[serde(default)]
    code_source: Option<String>,
    #[serde(default)]
    methods: Vec<MethodDefinition>,
    #[serde(default)]
    types: Vec<Json>,
    #[serde(default)]
    parameters: BTreeMap<String, String>,
}

impl ServiceDefinition {
    /// Reads the JSON a metadata report holds (or a 2.7 MetadataService's
    /// `getServiceDefinition` answers).
    ///
    /// # Errors
    ///
    /// [`RegistryError::Instance`] when it is not such JSON (with the line and column).
    pub fn from_json(json: &[u8]) -> Result<Self, RegistryError> {
        let raw: RawDefinition =
            serde_json::from_slice(json).map_err(|source| RegistryError::Instance {
                what: "service definition",
                source,
            })?;
        let types = raw
            .types
            .iter()
            .map(|t| TypeDefinition {
                type_name: type_name(t, None, &raw.types),
                items: names(t.get("items"), t, &raw.types),
                enums: names(t.get("enums"), t, &raw.types),
                properties: t
                    .get("properties")
                    .and_then(Json::as_object)
                    .map(|p| {
                        p.iter()
                            .map(|(k, v)| (k.clone(), type_name(v, Some(t), &raw.types)))
                            .collect()
                    })
                    .unwrap_or_default(),
            })
            .collect();
        Ok(ServiceDefinition {
            canonical_name: raw.canonical_name,
            code_source: raw.code_source.unwrap_or_default(),
            methods: raw.methods,
            types,
            parameters: raw.parameters,
        })
    }

    /// The JSON Dubbo 3 writes (what [`from_json`](Self::from_json) reads back): methods with
    /// their types, types with their properties as type names.
    pub fn to_json(&self) -> Vec<u8> {
        let methods: Vec<Json> = self
            .methods
            .iter()
            .map(|m| {
                json!({"annotations": [], "name": m.name, "parameterTypes": m.parameter_types,
                       "parameters": [], "returnType": m.return_type})
            })
            .collect();
        let types: Vec<Json> = self
            .types
            .iter()
            .map(|t| {
                json!({"enums": t.enums, "items": t.items, "properties": t.properties,
                       "type": t.type_name})
            })
            .collect();
        json!({
            "annotations": [],
            "canonicalName": self.canonical_name,
            "codeSource": self.code_source,
            "methods": methods,
            "parameters": self.parameters,
            "types": types,
        })
        .to_string()
        .into_bytes()
    }

    /// The definition of `type_name`, if the provider published it.
    pub fn type_definition(&self, type_name: &str) -> Option<&TypeDefinition> {
        self.types.iter().find(|t| t.type_name == type_name)
    }
}

/// A type as 3.x writes it (its name), as 2.7 does (a type object, or fastjson's reference to
/// one written before), or `""` when it is none of these.
///
/// fastjson writes a type object once and each later sighting of the same Java object as
/// `{"$ref": path}`. The path names where it was first written, so it depends on the order
/// Dubbo 2.7 lists the types in, which follows `Class` identity hashes and changes from run
/// to run: `$.types[3]`, but as well `$.types[0].properties.placed.properties.date` (a
/// `LocalDate` first met inside a `LocalDateTime`), `$.types[2].items[0]` or `..` (the type
/// that holds the property, for a self-referencing class).
fn type_name(v: &Json, owner: Option<&Json>, types: &[Json]) -> String {
    let mut v = v;
    // A reference to a reference is not what fastjson writes; a few hops are followed, so
    // a cycle cannot loop.
    for _ in 0..4 {
        match v {
            Json::String(s) => return s.clone(),
            Json::Object(o) => {
                if let Some(t) = o.get("type").and_then(Json::as_str) {
                    return t.to_owned();
                }
                let target = match o.get("$ref").and_then(Json::as_str) {
                    Some("..") => owner,
                    Some(path) => resolve(path, types),
                    None => None,
                };
                match target {
                    Some(t) => v = t,
                    None => break,
                }
            }
            _ => break,
        }
    }
    String::new()
}

/// The value a fastjson path (`$.types[N]` then `.name` and `[i]` steps) names in the
/// definition, if it is inside `types`.
fn resolve<'a>(path: &str, types: &'a [Json]) -> Option<&'a Json> {
    let mut rest = path.strip_prefix("$.types[")?;
    let (index, after) = rest.split_once(']')?;
    let mut at = types.get(index.parse::<usize>().ok()?)?;
    rest = after;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('[') {
            let (index, after) = r.split_once(']')?;
            at = at.get(index.parse::<usize>().ok()?)?;
            rest = after;
        } else {
            let r = rest.strip_prefix('.')?;
            let end = r.find(['.', '[']).unwrap_or(r.len());
            at = at.get(&r[..end])?;
            rest = &r[end..];
        }
    }
    Some(at)
}

fn names(v: Option<&Json>, owner: &Json, types: &[Json]) -> Vec<String> {
    v.and_then(Json::as_array)
        .map(|a| a.iter().map(|i| type_name(i, Some(owner), types)).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What Dubbo 3.2.19 wrote for interop/dubbo-java's `provider --bootstrap all`.
    const JAVA_3_2: &[u8] = include_bytes!("../tests/data/definition-3.2.19.json");
    /// What Dubbo 2.7.23 wrote for `provider --registry ... --metadata-report`.
    const JAVA_2_7: &[u8] = include_bytes!("../tests/data/definition-2.7.23.json");

    #[test]
    fn both_generations_read_alike() {
        for (json, release) in [(JAVA_3_2, "3.2.19"), (JAVA_2_7, "2.7.23")] {
            let d = ServiceDefinition::from_json(json).unwrap();
            assert_eq!(d.canonical_name, "io.github.hessianrs.demo.DemoService");
            assert_eq!(
                d.parameters.get("release").map(String::as_str),
                Some(release)
            );
            let say = d.methods.iter().find(|m| m.name == "sayHello").unwrap();
            assert_eq!(say.parameter_types, ["java.lang.String"]);
            assert_eq!(say.return_type, "java.lang.String");
            let add = d.methods.iter().find(|m| m.name == "add").unwrap();
            assert_eq!(
                (add.parameter_types.as_slice(), add.return_type.as_str()),
                (&["int".to_owned(), "int".to_owned()][..], "int")
            );
            let user = d.type_definition("io.github.hessianrs.demo.User").unwrap();
            let props: Vec<(&str, &str)> = user
                .properties
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            assert_eq!(
                props,
                [
                    ("active", "boolean"),
                    ("age", "int"),
                    ("created", "java.util.Date"),
                    ("email", "java.lang.String"),
                    ("id", "long"),
                    ("name", "java.lang.String"),
                ],
                "{release}"
            );
        }
        let d = ServiceDefinition::from_json(JAVA_3_2).unwrap();
        let list = d
            .type_definition("java.util.List<java.lang.String>")
            .unwrap();
        assert_eq!(list.items, ["java.lang.String"]);
    }

    #[test]
    fn written_as_read() {
        for json in [JAVA_3_2, JAVA_2_7] {
            let d = ServiceDefinition::from_json(json).unwrap();
            assert_eq!(ServiceDefinition::from_json(&d.to_json()).unwrap(), d);
        }
    }

    #[test]
    fn bad_json_is_an_error_with_its_place() {
        let e = ServiceDefinition::from_json(&JAVA_3_2[..50]).unwrap_err();
        assert!(e.to_string().contains("column"), "{e}");
        assert!(ServiceDefinition::from_json(b"\"text\"").is_err());
        assert!(ServiceDefinition::from_json(b"{\"methods\": 1}").is_err());
        // A reference out of range names no type, and does not panic.
        let d = ServiceDefinition::from_json(
            br#"{"types": [{"type": "A", "properties": {"x": {"$ref": "$.types[9]"}}}]}"#,
        )
        .unwrap();
        assert_eq!(d.types[0].properties["x"], "");
    }

    /// The references fastjson writes when 2.7 lists a type after a type that holds it: the
    /// order follows `Class` identity hashes, so any of these shapes can come on a given run.
    #[test]
    fn references_into_nested_types_are_followed() {
        let d = ServiceDefinition::from_json(
            br#"{"types": [
                {"type": "demo.Order", "properties": {
                    "placed": {"type": "java.time.LocalDateTime", "properties": {
                        "date": {"type": "java.time.LocalDate", "properties": {}}}},
                    "due": {"$ref": "$.types[0].properties.placed.properties.date"},
                    "next": {"$ref": ".."},
                    "lines": {"type": "java.util.List<demo.Line>",
                              "items": [{"type": "demo.Line", "properties": {}}]},
                    "line": {"$ref": "$.types[0].properties.lines.items[0]"},
                    "also": {"$ref": "$.types[1]"},
                    "bad": {"$ref": "$.types[0].properties.nothing"},
                    "worse": {"$ref": "$.types[0"}}},
                {"$ref": "$.types[0].properties.due"}]}"#,
        )
        .unwrap();
        let order = &d.types[0].properties;
        assert_eq!(order["due"], "java.time.LocalDate");
        assert_eq!(order["next"], "demo.Order");
        assert_eq!(order["line"], "demo.Line");
        assert_eq!(order["also"], "java.time.LocalDate");
        assert_eq!(order["bad"], "");
        assert_eq!(order["worse"], "");
        assert_eq!(d.types[1].type_name, "java.time.LocalDate");
        // A cycle of references ends as no name.
        let d = ServiceDefinition::from_json(
            br#"{"types": [{"$ref": "$.types[1]"}, {"$ref": "$.types[0]"}]}"#,
        )
        .unwrap();
        assert_eq!(d.types[0].type_name, "");
    }

    #[test]
    fn report_paths_like_dubbo() {
        let mut k = DefinitionKey {
            interface: "demo.Greeter".into(),
            version: "1.0.0".into(),
            group: String::new(),
            application: "app".into(),
        };
        assert_eq!(
            k.report_path("dubbo"),
            "/dubbo/metadata/demo.Greeter/1.0.0/provider/app"
        );
        k.group = "g".into();
        assert_eq!(
            k.report_path("/svc/"),
            "/svc/metadata/demo.Greeter/1.0.0/g/provider/app"
        );
        k.version.clear();
        assert_eq!(
            k.report_path("dubbo"),
            "/dubbo/metadata/demo.Greeter/g/provider/app"
        );
        k.version = "g".into();
        assert_eq!(
            k.report_path("dubbo"),
            "/dubbo/metadata/demo.Greeter/g/provider/app"
        );
    }
}
