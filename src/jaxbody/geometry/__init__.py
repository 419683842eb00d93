"""Geometry: Drake's shapes, contact/visual properties, and registered-geometry records."""

from jaxbody.geometry.geometry_instance import GeometryId, RegisteredGeometry, Role
from jaxbody.geometry.geometry_set import GeometrySet
from jaxbody.geometry.properties import (
    AddCompliantHydroelasticProperties,
    AddCompliantHydroelasticPropertiesForHalfSpace,
    AddContactMaterial,
    AddRigidHydroelasticProperties,
    CalcContactFrictionFromSurfaceProperties,
    CoulombFriction,
    GeometryProperties,
    IllustrationProperties,
    MakePhongIllustrationProperties,
    ProximityProperties,
)
from jaxbody.geometry.scene_graph_config import DefaultProximityProperties, SceneGraphConfig
from jaxbody.geometry.shapes import (
    Box,
    Capsule,
    Convex,
    Cylinder,
    Ellipsoid,
    HalfSpace,
    Mesh,
    Shape,
    Sphere,
)

__all__ = [
    "AddCompliantHydroelasticProperties", "AddCompliantHydroelasticPropertiesForHalfSpace",
    "AddContactMaterial", "AddRigidHydroelasticProperties", "Box",
    "CalcContactFrictionFromSurfaceProperties", "Capsule", "Convex",
    "CoulombFriction", "Cylinder", "Ellipsoid", "GeometryId", "GeometryProperties", "GeometrySet",
    "HalfSpace",
    "IllustrationProperties", "MakePhongIllustrationProperties", "Mesh", "ProximityProperties",
    "RegisteredGeometry", "Role", "Shape", "Sphere", "DefaultProximityProperties",
    "SceneGraphConfig",
]
